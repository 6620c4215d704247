package io.srdnic.bench;

import io.srdnic.pmd.Affinity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs {@link IoForward} for a fixed time the way {@code dpdk-testpmd --forward-mode=io --tx-first
 * --stats-period 1} does, and reports the rate the same way: once a second, the frames both ports
 * received (rte_eth_stats ipackets) since the previous sample, per second. The first
 * {@code --warmup} samples are printed but left out of the median.
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp jmh-benches/target/benchmarks.jar io.srdnic.bench.IoForwardMain \
 * [--seconds 5] [--warmup 1] [--path fpops-long|fpops|shim-long|shim] [--cpu 1] [--file-prefix P] [--rxd 512] [--txd 512] [--mbufs 8192]
 * [--txpkts 64] [--json]
 * </pre>
 * Output: a header line, {@code sample N pps=R [warm-up]} lines, then {@code median_pps=R}, the
 * forwarder's own totals, and with {@code --json} one JSON object on the last line.
 */
public final class IoForwardMain {
    private IoForwardMain() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = 5;
        int warmup = 1;
        IoForward.Path path = IoForward.Path.FP_OPS_LONG;
        int cpu = 1;
        String prefix = "srdnic-iofwd-" + ProcessHandle.current().pid();
        int descriptors = RingPorts.DESCRIPTORS;
        int mbufs = RingPorts.MBUFS;
        int frameLength = 64;
        boolean json = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--seconds" -> seconds = positive(a, args, ++i);
                case "--warmup" -> warmup = Integer.parseInt(value(a, args, ++i));
                case "--path" -> path = IoForward.Path.parse(value(a, args, ++i));
                case "--cpu" -> cpu = Integer.parseInt(value(a, args, ++i));
                case "--file-prefix" -> prefix = value(a, args, ++i);
                case "--rxd", "--txd" -> descriptors = positive(a, args, ++i);
                case "--mbufs" -> mbufs = positive(a, args, ++i);
                case "--txpkts" -> frameLength = positive(a, args, ++i);
                case "--json" -> json = true;
                case "-h", "--help" -> {
                    System.out.println("usage: IoForwardMain [--seconds 5] [--warmup 1] [--path fpops-long|fpops|shim-long|shim] [--cpu "
                            + "1|-1] [--file-prefix P]"
                        + " [--rxd 512] [--txd 512] [--mbufs 8192] [--txpkts 64] [--json]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + a + " (try --help)");
            }
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must be >= 0");
        }

        try (RingPorts ports = RingPorts.start(prefix, descriptors, mbufs)) {
            IoForward fwd = new IoForward(path, ports.port0(), ports.port1());
            int inFlight = fwd.txFirst(ports.pool(), frameLength);
            System.out.printf(Locale.ROOT,
                    "io-forward path=%s ports=net_ring0,net_ring1 burst=%d in-flight=%d rxd=%d txd=%d mbufs=%d txpkts=%d cpu=%s%n",
                path.label(), IoForward.BURST, inFlight, descriptors, descriptors, mbufs, frameLength, cpu < 0 ? "any" : cpu);

            AtomicReference<Throwable> failure = new AtomicReference<>();
            final int pin = cpu;
            Thread forwarder = new Thread(() -> {
                try {
                    if (pin >= 0) {
                        Affinity.pinCurrentThread(pin);
                    }
                    ports.eal().registerThread(); // after pinning: DPDK records the thread's CPU set
                    ports.eal().enterLoop();
                    try {
                        fwd.run();
                    } finally {
                        ports.eal().exitLoop();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "io-fwd-lcore");
            forwarder.start();

            List<Double> measured = new ArrayList<>();
            long lastPackets = ports.rxPackets();
            long lastTime = System.nanoTime();
            long next = lastTime;
            for (int sample = 1; sample <= warmup + seconds && failure.get() == null; sample++) {
                next += TimeUnit.SECONDS.toNanos(1);
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                }
                long now = System.nanoTime();
                long packets = ports.rxPackets();
                double pps = (packets - lastPackets) * 1e9 / (now - lastTime);
                lastPackets = packets;
                lastTime = now;
                boolean warm = sample <= warmup;
                if (!warm) {
                    measured.add(pps);
                }
                System.out.printf(Locale.ROOT, "sample %d pps=%.0f%s%n", sample, pps, warm ? " warm-up" : "");
            }
            fwd.stop();
            forwarder.join();
            if (failure.get() != null) {
                throw new IllegalStateException("the forwarding thread failed: " + failure.get(), failure.get());
            }
            double median = median(measured);
            System.out.printf(Locale.ROOT, "median_pps=%.0f%n", median);
            // The PMD's counters and the loop's own must agree: what the rate is computed from is real.
            System.out.printf(Locale.ROOT, "forwarded rx=%d tx=%d dropped=%d ports_rx=%d pool_in_use=%d%n",
                fwd.rxPackets(), fwd.txPackets(), fwd.dropped(), ports.rxPackets(), ports.pool().inUse());
            if (json) {
                System.out.printf(Locale.ROOT, "{\"path\":\"%s\",\"seconds\":%d,\"median_pps\":%.0f,\"mpps\":%.3f,\"dropped\":%d}%n",
                    path.label(), seconds, median, median / 1e6, fwd.dropped());
            }
        }
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return 0;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String value(String option, String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int positive(String option, String[] args, int i) {
        int v = Integer.parseInt(value(option, args, i));
        if (v <= 0) {
            throw new IllegalArgumentException(option + " must be positive, was " + v);
        }
        return v;
    }
}
