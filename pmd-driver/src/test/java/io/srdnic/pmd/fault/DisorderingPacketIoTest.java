package io.srdnic.pmd.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every frame is sent, some twice (an intact copy right after it), some after the next burst's frames; no mbuf is lost. */
class DisorderingPacketIoTest {
    static {
        // No DPDK in this test: the port is a stub over rte_mbuf-shaped buffers.
        System.setProperty("srdnic.shim.path", "/nonexistent/srdnic-test/libsrdnic_shim.so");
    }

    @Test
    void shouldSendEveryFrameSomeTwiceSomeLateAndGiveEveryMbufBack() {
        try (Arena arena = Arena.ofShared()) {
            SimBufferPool pool = new SimBufferPool(arena, 256, 128);
            List<Integer> sent = new ArrayList<>();
            PacketIo port = new RecordingPort(pool, sent);
            DisorderingPacketIo io = new DisorderingPacketIo(port, 0.1, 0.1, 42);
            MbufBatch batch = new MbufBatch(arena, 32);
            int frames = 3200;
            int total = 0;
            for (int next = 0; next < frames; ) {
                assertEquals(32, pool.allocate(batch, 32, 0));
                for (int i = 0; i < 32; i++, next++) {
                    Mbuf m = batch.get(i);
                    m.putIntBE(0, next);
                    m.frameLength(60);
                }
                total += io.transmit(batch);
                assertEquals(0, batch.count(), "transmit takes every frame of the burst");
            }
            total += io.transmit(batch); // an empty burst lets the last held frames go
            assertEquals(0, pool.inUse(), "every frame, copy and held frame went to the port, which freed them");
            assertEquals(frames + io.duplicated(), sent.size());
            assertEquals(sent.size(), total);
            assertTrue(io.duplicated() > 200 && io.delayed() > 200, "about 10 % each: " + io.duplicated() + ", " + io.delayed());
            boolean[] seen = new boolean[frames];
            int late = 0;
            int max = -1;
            for (int i = 0; i < sent.size(); i++) {
                int k = sent.get(i);
                seen[k] = true;
                if (k < max && (i == 0 || sent.get(i - 1) != k)) {
                    late++;
                }
                max = Math.max(max, k);
            }
            for (int k = 0; k < frames; k++) {
                assertTrue(seen[k], "frame " + k + " was never sent");
            }
            // each held frame goes after frames sent later, and only those (the very last frame, if held, has none to follow)
            assertTrue(late == io.delayed() || late == io.delayed() - 1, late + " late of " + io.delayed() + " held");
        }
    }

    /** A stub port that records the number in each frame it is given to send, then frees it. */
    private static final class RecordingPort extends ForwardingPacketIo {
        private final List<Integer> sent;

        RecordingPort(SimBufferPool pool, List<Integer> sent) {
            super(new InjectingPacketIoTest.StubPort(pool));
            this.sent = sent;
        }

        @Override
        public int transmit(MbufBatch batch) {
            int n = batch.count();
            for (int i = 0; i < n; i++) {
                Mbuf m = batch.get(i);
                assertEquals(60, m.dataLength(), "a copy has its original's length");
                sent.add(m.getIntBE(0));
            }
            inner.transmit(batch);
            batch.clear();
            return n;
        }
    }
}
