package io.srdnic.cli.pktgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * pktgen's frame checker against random and mutated frames: it never throws, never accepts a
 * damaged frame, and always accepts an intact one. Uses simulated mbufs: no EAL needed.
 */
class PktgenFrameFuzzTest {
    static final int RUN = 0x1234_5678;

    @Test
    void shouldClassifyRandomOrMutatedFramesWithoutThrowing() {
        SplittableRandom random = new SplittableRandom(42);
        try (Arena arena = Arena.ofConfined()) {
            SimBufferPool pool = new SimBufferPool(arena, 64, 4096);
            MbufBatch batch = new MbufBatch(arena, 1);
            Mbuf scratch = new Mbuf();
            int accepted = 0;
            for (int i = 0; i < 20_000; i++) {
                pool.allocate(batch, 1, 0);
                Mbuf m = batch.get(0);
                int length = PktgenFrame.MIN_LENGTH + random.nextInt(2000);
                long seq = random.nextLong(1L << 40);
                PktgenFrame.writeData(m, 0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L, RUN, seq, length);
                int mutation = random.nextInt(4);
                switch (mutation) {
                    case 0 -> { } // intact
                    case 1 -> { // flip one bit anywhere past the MACs
                        int off = 12 + random.nextInt(length - 12);
                        m.putByte(off, (byte) (m.getByte(off) ^ (1 << random.nextInt(8))));
                    }
                    case 2 -> m.frameLength(random.nextInt(length)); // truncated
                    default -> { // random garbage of random length
                        int len = random.nextInt(m.capacity());
                        for (int off = 0; off < len; off++) {
                            m.putByte(off, (byte) random.nextInt());
                        }
                        m.frameLength(len);
                    }
                }
                long result = PktgenFrame.verifyData(m, scratch, RUN, length);
                if (mutation == 0) {
                    assertEquals(seq, result, "an intact frame must be accepted");
                    accepted++;
                } else {
                    assertNotEquals(seq, result, "a damaged frame must not pass as sequence " + seq + " (mutation " + mutation + ")");
                }
                pool.free(batch);
            }
            assertNotEquals(0, accepted);
            assertEquals(0, pool.inUse());
        }
    }
}
