import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Thread CPU time per op of {@code RdmaWriteBench.writeAndComplete} on the simulated link, for
 * scripts/bench-cpu-ab. CPU time leaves out the time the thread was descheduled, so on a shared,
 * busy machine it separates two builds that wall-clock time cannot; run with -Xbatch, so that the
 * code is compiled however starved the compiler threads are. Launched as a single source file
 * against any build's benchmarks.jar (it reaches the benchmark by reflection, so old jars work).
 * Arguments: transport (rc|srd), size, ops per round, rounds, and optionally zero-copy-min-bytes
 * (benchmarks.jar builds that have the parameter) and the link (sim, the default; ring; memif, where
 * it has it). Prints the median ns per op.
 */
public final class CpuPerOp {
    public static void main(String[] args) throws Exception {
        Class<?> c = Class.forName("io.srdnic.bench.RdmaWriteBench");
        Object bench = c.getDeclaredConstructor().newInstance();
        set(c, bench, "link", args.length > 5 ? args[5] : "sim");
        set(c, bench, "transport", args[0]);
        set(c, bench, "size", Integer.parseInt(args[1]));
        if (args.length > 4) {
            set(c, bench, "zeroCopyMinBytes", Integer.parseInt(args[4]));
        }
        int ops = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        c.getMethod("setUp").invoke(bench);
        c.getMethod("clearTarget").invoke(bench);
        Method op = c.getMethod("writeAndComplete");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 2 * ops; i++) {
            op.invoke(bench);
        }
        double[] perOp = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < ops; i++) {
                op.invoke(bench);
            }
            perOp[r] = (threads.getCurrentThreadCpuTime() - start) / (double) ops;
        }
        c.getMethod("checkLanded").invoke(bench); // the last write landed whole: the ops were real
        Arrays.sort(perOp);
        System.out.printf("%.1f%n", perOp[rounds / 2]);
        System.exit(0); // the benchmark's contexts keep non-daemon threads
    }

    private static void set(Class<?> c, Object o, String name, Object value) throws ReflectiveOperationException {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        f.set(o, value);
    }
}
