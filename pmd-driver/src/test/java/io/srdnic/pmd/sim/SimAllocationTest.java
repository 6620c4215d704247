package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The hot-path rule: sending, forwarding under faults, delivering and receiving allocate nothing per frame. */
class SimAllocationTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;
    static final int BURST = 32;

    @Test
    void shouldNotAllocatePerFrameInSteadyState() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        LinkConfig faulty = LinkConfig.builder().jitterNanos(200).lossProbability(0.01).duplicateProbability(0.01)
            .reorderProbability(0.05).corruptProbability(0.01).build();
        SimNetwork.Config config = SimNetwork.Config.builder().accessLink(faulty).fabricPath(faulty).pathCount(4).build();
        try (Arena arena = Arena.ofConfined(); SimNetwork network = new SimNetwork(9, config)) {
            SimPort a = network.addHost(MAC_A);
            SimPort b = network.addHost(MAC_B);
            MbufBatch tx = new MbufBatch(arena, BURST);
            MbufBatch rx = new MbufBatch(arena, BURST);
            long[] received = new long[1];
            for (int warmup = 0; warmup < 5_000; warmup++) {
                exchange(network, a, b, tx, rx, warmup, received);
            }
            long tid = Thread.currentThread().threadId();
            long before = threads.getThreadAllocatedBytes(tid);
            int rounds = 2_000;
            for (int round = 0; round < rounds; round++) {
                exchange(network, a, b, tx, rx, round, received);
            }
            long allocated = threads.getThreadAllocatedBytes(tid) - before;
            long frames = (long) rounds * BURST;
            assertTrue(received[0] > frames, "traffic flowed");
            assertTrue(allocated < frames / 10, allocated + " bytes allocated for " + frames + " frames");
            SimFrames.runUntilIdle(network, rx, (port, frame, now) -> { });
            assertEquals(0, network.pool().inUse());
        }
    }

    /** One burst A to B, then half a microsecond of time, then B receives what is due. */
    private static void exchange(SimNetwork network, SimPort a, SimPort b, MbufBatch tx, MbufBatch rx, int round, long[] received) {
        tx.clear();
        if (a.allocate(tx, BURST) == BURST) {
            for (int i = 0; i < BURST; i++) {
                SimFrames.writeUdp(tx.get(i), MAC_B, MAC_A, round + i, 128, round);
            }
            a.transmit(tx);
        }
        network.clock().advanceBy(500);
        int n;
        while ((n = b.receive(rx)) > 0) {
            received[0] += n;
            b.free(rx);
        }
    }
}
