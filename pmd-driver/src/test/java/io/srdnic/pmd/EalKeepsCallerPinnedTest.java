package io.srdnic.pmd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * EAL makes its calling thread lcore 0 and sets that thread's CPU set to lcore 0's. A dataplane
 * pins its loop thread to the CPU it was given before it starts EAL; EAL must leave it there. (It
 * once moved it to CPU 0, where the application's own pinned spinning thread ran: two busy threads
 * on one CPU, each handing over to the other only at the scheduler's 4 ms tick.) EAL's control
 * threads (its interrupt thread: memif's connections, link changes) must then run on the process's
 * other CPUs, not beside the busy loop.
 */
class EalKeepsCallerPinnedTest {
    @Test
    void shouldKeepTheStartingThreadsCpuToItself() throws Exception {
        byte[] allowed = Affinity.currentThreadCpus();
        List<Integer> cpus = new ArrayList<>();
        for (int cpu = 0; cpu < allowed.length * 8; cpu++) {
            if ((allowed[cpu / 8] & (1 << (cpu % 8))) != 0) {
                cpus.add(cpu);
            }
        }
        assumeTrue(cpus.size() >= 2, "one CPU allowed: a thread pinned anywhere is on it whatever EAL does, so nothing can be seen");
        int loopCpu = cpus.getLast();
        Affinity.pinCurrentThread(loopCpu);
        byte[] pinned = Affinity.currentThreadCpus();
        try (Eal eal = Eal.start(new EalConfig())) {
            assertArrayEquals(pinned, Affinity.currentThreadCpus(), "EAL moved the thread it started on off CPU " + loopCpu);
            String control = controlThreadCpus();
            assertTrue(control != null, "no EAL interrupt thread found");
            assertFalse(control.equals(Integer.toString(loopCpu)), "EAL's control threads run only on the loop's CPU " + loopCpu);
        }
    }

    /** The Cpus_allowed_list of EAL's interrupt thread, or null. */
    private static String controlThreadCpus() throws Exception {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                if (Files.readString(task.resolve("comm")).trim().equals("eal-intr-thread")) {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("Cpus_allowed_list:")) {
                            return line.substring(line.indexOf(':') + 1).trim();
                        }
                    }
                }
            }
        }
        return null;
    }
}
