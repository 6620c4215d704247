package io.srdnic.pmd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * EAL makes its calling thread lcore 0 and sets that thread's CPU set to lcore 0's. A dataplane
 * pins its loop thread to the CPU it was given before it starts EAL; EAL must leave it there. (It
 * once moved it to CPU 0, where the application's own pinned thread spun: two busy threads on one
 * CPU, each handing over to the other only at the scheduler's 4 ms tick.)
 */
class EalKeepsCallerPinnedTest {
    @Test
    void shouldLeaveTheStartingThreadOnTheCpuItWasPinnedTo() {
        int cpus = Runtime.getRuntime().availableProcessors();
        assumeTrue(cpus >= 2, "one CPU: a thread pinned anywhere is on CPU 0 whatever EAL does, so the move cannot be seen");
        int last = cpus - 1;
        Affinity.pinCurrentThread(last);
        byte[] pinned = Affinity.currentThreadCpus();
        try (Eal eal = Eal.start(new EalConfig())) {
            assertArrayEquals(pinned, Affinity.currentThreadCpus(), "EAL moved the thread it started on off CPU " + last);
        }
    }
}
