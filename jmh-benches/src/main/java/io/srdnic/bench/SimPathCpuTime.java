package io.srdnic.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * {@link SrdSimPathBench}'s loop timed in thread CPU time rather than wall time, for a machine
 * loaded by other work, where a preempted thread makes JMH's wall-clock averages meaningless:
 * the time the thread was not running is not counted. Prints the CPU nanoseconds per message of
 * each block, then the responder's ACKs per message.
 * <p>
 * {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar io.srdnic.bench.SimPathCpuTime SIZE default|fast BLOCKS BATCHES}
 * (BATCHES of 64 messages per block, after three warm-up blocks). It uses only the transport's
 * public API, so an older build's classes can be timed with this runner: put that build's
 * benchmarks.jar first on the class path and this one after it.
 */
public final class SimPathCpuTime {
    private SimPathCpuTime() {
    }

    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: SimPathCpuTime SIZE default|fast BLOCKS BATCHES");
            System.exit(2);
        }
        System.setProperty("srdnic.shim.path", "/nonexistent"); // no DPDK needed on the simulated network
        int size = Integer.parseInt(args[0]);
        int blocks = Integer.parseInt(args[2]);
        int batches = Integer.parseInt(args[3]);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        StringBuilder out = new StringBuilder();
        try (SimPathPair pair = new SimPathPair(size, args[1].equals("fast"))) {
            long acksBefore = 0;
            for (int block = -3; block < blocks; block++) {
                if (block == 0) {
                    acksBefore = pair.b.counters().txAcks;
                }
                long cpu = threads.getCurrentThreadCpuTime();
                for (int n = 0; n < batches; n++) {
                    pair.postAndCompleteBatch();
                }
                cpu = threads.getCurrentThreadCpuTime() - cpu;
                if (block >= 0) {
                    out.append(String.format(Locale.ROOT, "%.1f ", cpu / (double) (batches * SimPathPair.BATCH)));
                }
            }
            long messages = (long) blocks * batches * SimPathPair.BATCH;
            out.append(String.format(Locale.ROOT, "ns/msg; acks/msg %.3f", (pair.b.counters().txAcks - acksBefore) / (double) messages));
        }
        System.out.println(out);
    }
}
