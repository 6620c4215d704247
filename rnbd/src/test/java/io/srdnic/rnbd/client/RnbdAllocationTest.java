package io.srdnic.rnbd.client;

import static io.srdnic.rnbd.client.RnbdSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.block.IoCompletion;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rnbd.server.ExportDirectory;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Steady-state block IO through RnbdDevice allocates nothing: queueing, RNBD's message, RTRS both
 * ways, the server's checks and device, the completion.
 */
class RnbdAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** One outstanding IO slot: each completion submits the next (writes and reads in turn) from the same buffer. */
    static final class Slot implements IoCompletion {
        final RnbdDevice device;
        final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        final long offset;
        long done;
        int errors;
        boolean stop;

        Slot(RnbdDevice device, int index) {
            this.device = device;
            this.offset = (long) index * 4096;
        }

        void next() {
            buffer.clear();
            if ((done & 1) == 0) {
                device.write(offset, buffer, (done & 2) != 0, this);
            } else {
                device.read(offset, buffer, this);
            }
        }

        @Override
        public void complete(int error) {
            done++;
            errors += error != 0 ? 1 : 0;
            if (!stop) {
                next();
            }
        }
    }

    @Test
    void shouldAllocateNothingPerIoOnceOpen() throws Exception {
        try (RnbdSim sim = new RnbdSim(41, 1, new ExportDirectory(null).memory("m", 1 << 20))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "m", Rnbd.ACCESS_RW);
            Slot[] slots = new Slot[8];
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Slot(d, i);
                slots[i].next();
            }
            long before = 0;
            long ios = 0;
            for (int round = 0; round < 4; round++) { // three rounds warm up (JIT, the device's pages), the last is measured
                long start = total(slots);
                long target = start + 20_000;
                before = THREADS.getCurrentThreadAllocatedBytes();
                assertTrue(sim.run(() -> total(slots) >= target, 60_000 * MS));
                ios = total(slots) - start;
            }
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            System.out.println("RNBD-ALLOCATION " + allocated + " B over " + ios + " IOs");
            for (Slot s : slots) {
                s.stop = true;
                assertEquals(0, s.errors);
            }
            // an object per IO would be 16 B x 20,000 = 320 KB at least; what is left is the JIT's noise
            assertTrue(allocated < 16 * 1024, "allocated " + allocated + " B over " + ios + " IOs");
            sim.run(() -> false, 50 * MS);
        }
    }

    private static long total(Slot[] slots) {
        long n = 0;
        for (Slot s : slots) {
            n += s.done;
        }
        return n;
    }
}
