package io.srdnic.bench;

import io.srdnic.pmd.Affinity;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Compares the {@link IoForward.Path}s on a noisy machine: one JVM, one pinned thread, the same two
 * ports and 64 mbufs, and the paths taking turns in short slices (the order rotating each cycle), so
 * every path sees the same neighbours' load. Separate runs or JMH forks, minutes apart, cannot
 * resolve a 10% difference on a shared 2-CPU machine; this can.
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp jmh-benches/target/benchmarks.jar io.srdnic.bench.IoForwardPaths [cycles=30] [sliceMs=500]
 * [cpu=1]
 * </pre>
 * Prints, per path, the median Mpps over the slices (first cycle left out as warm-up), min and max.
 * Slices call {@link IoForward#forwardOnce()}, which switches on the path per pass: a few percent below
 * {@link IoForward#run()}, the same for every path.
 */
public final class IoForwardPaths {
    private IoForwardPaths() {
    }

    public static void main(String[] args) {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        long sliceNanos = (args.length > 1 ? Long.parseLong(args[1]) : 500) * 1_000_000L;
        int cpu = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        try (RingPorts ports = RingPorts.start("srdnic-paths-" + ProcessHandle.current().pid(), RingPorts.DESCRIPTORS, RingPorts.MBUFS)) {
            IoForward.Path[] paths = IoForward.Path.values();
            IoForward[] forwarders = new IoForward[paths.length];
            for (int i = 0; i < paths.length; i++) {
                forwarders[i] = new IoForward(paths[i], ports.port0(), ports.port1());
            }
            forwarders[0].txFirst(ports.pool(), 64); // the 64 mbufs circulate whichever forwarder runs
            if (cpu >= 0) {
                Affinity.pinCurrentThread(cpu);
            }
            ports.eal().registerThread();
            Map<IoForward.Path, List<Double>> mpps = new EnumMap<>(IoForward.Path.class);
            for (int cycle = 0; cycle < cycles; cycle++) {
                for (int i = 0; i < paths.length; i++) {
                    int k = (i + cycle) % paths.length;
                    IoForward fwd = forwarders[k];
                    long before = fwd.rxPackets();
                    long start = System.nanoTime();
                    long end = start + sliceNanos;
                    while (System.nanoTime() < end) {
                        for (int j = 0; j < 1000; j++) {
                            fwd.forwardOnce();
                        }
                    }
                    double rate = (fwd.rxPackets() - before) * 1e3 / (System.nanoTime() - start);
                    if (cycle > 0) {
                        mpps.computeIfAbsent(paths[k], p -> new ArrayList<>()).add(rate);
                    }
                }
            }
            System.out.printf(Locale.ROOT, "io-forward paths, interleaved: %d cycles of %d ms slices, CPU %s%n", cycles - 1,
                    sliceNanos / 1_000_000,
                cpu < 0 ? "any" : cpu);
            for (Map.Entry<IoForward.Path, List<Double>> e : mpps.entrySet()) {
                List<Double> v = new ArrayList<>(e.getValue());
                v.sort(null);
                System.out.printf(Locale.ROOT, "%-11s median %7.1f Mpps  min %7.1f  max %7.1f  (n=%d)%n", e.getKey().label(),
                    IoForwardMain.median(v), v.get(0), v.get(v.size() - 1), v.size());
            }
        }
    }
}
