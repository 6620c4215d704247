package io.srdnic.cli.xrc;

import io.srdnic.cli.Json;
import io.srdnic.cli.net.MemifSpec;
import io.srdnic.cli.pktgen.PeerProcess;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.ThreadingMode;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic xrc-all-to-all}: two nodes of {@code --jobs} jobs each, every job sending to every
 * job of the other node through its one XRC_SEND QP (SRC queue pairs in the XRC shape, seed 001),
 * connected by the connection manager alone; every message checked. sim and ring run both nodes in
 * this process; memif runs each node in its own JVM, sharing nothing but the memif link.
 */
@Command(name = "xrc-all-to-all", mixinStandardHelpOptions = true,
    description = "Two nodes of J jobs; every job sends to every remote job over one XRC_SEND QP (SRC), connected by the CM; each"
        + " message checked.")
public final class XrcAllToAllCommand implements Callable<Integer> {
    static final int[] IP = {0x0A00_0001, 0x0A00_0002};
    private static final AtomicInteger RUNS = new AtomicInteger();

    enum Link { sim, ring, memif }

    @Option(names = "--link", defaultValue = "sim", description = "sim | ring | memif (default ${DEFAULT-VALUE}).")
    Link link;

    @Option(names = "--jobs", defaultValue = "4", description = "Jobs per node, 1..48 (default ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--messages", defaultValue = "100",
            description = "Messages from each job to each remote job (default ${DEFAULT-VALUE}).")
    int messages;

    @Option(names = "--size", defaultValue = "256", description = "Message size in bytes, 16..4096 (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--port", defaultValue = "7473", description = "The CM service port both nodes listen on (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--time-limit-s", defaultValue = "120", description = "Give up after this many seconds (default ${DEFAULT-VALUE}).")
    int timeLimitSeconds;

    @Option(names = "--json", description = "Print one JSON object on the last line (per node for memif: node 1's last).")
    boolean json;

    @Option(names = "--node", hidden = true, description = "memif child: 0 (goes second) or 1 (goes first)")
    Integer node;

    @Option(names = "--vdev", hidden = true, description = "memif child: its EAL device spec")
    String vdev;

    @Override
    public Integer call() {
        // 48 jobs' SRQ numbers fill the accept's 196 bytes of private data.
        if (jobs < 1 || jobs > 48 || messages < 1 || messages > 100_000 || size < XrcNode.HEADER || size > 4096) {
            throw new IllegalArgumentException("--jobs 1..48, --messages 1..100000, --size " + XrcNode.HEADER + "..4096");
        }
        if (node != null) {
            return child();
        }
        return switch (link) {
            case sim -> sim();
            case ring -> ring();
            case memif -> memif();
        };
    }

    private int sim() {
        try (SimWorld world = new SimWorld(RUNS.incrementAndGet()); Arena arena = Arena.ofShared();
             Context c0 = Context.open(Device.sim(world)); Context c1 = Context.open(Device.sim(world))) {
            XrcNode a = new XrcNode(c0, 0, c1.ip(), port, jobs, messages, size, arena);
            XrcNode b = new XrcNode(c1, 1, c0.ip(), port, jobs, messages, size, arena);
            b.start(true);
            long end = deadline();
            while (!(a.done() && b.done()) && System.nanoTime() - end < 0) {
                a.step();
                b.step();
            }
            int status = report(a) | report(b);
            a.close();
            b.close();
            return status;
        }
    }

    private int ring() {
        Eal eal = Eal.startOrGet(new EalConfig());
        int run = RUNS.incrementAndGet();
        try (RingLink ring = RingLink.create(1024);
             MbufPool pool0 = MbufPool.create("xrca" + run, 8191, 4096 + 256);
             MbufPool pool1 = MbufPool.create("xrcb" + run, 8191, 4096 + 256);
             Arena arena = Arena.ofShared()) {
            ring.a().configure(PortConfig.DEFAULT, pool0).start();
            ring.b().configure(PortConfig.DEFAULT, pool1).start();
            int[] status = {1};
            CountDownLatch listening = new CountDownLatch(1);
            Thread other = new Thread(() -> {
                // the context is opened on the thread that polls it: INVOKER registers that thread with DPDK
                try (Context c = Context.open(Device.dpdk(ring.b(), pool1), new ContextConfig().mode(ThreadingMode.INVOKER).ip(IP[1]))) {
                    status[0] = runNode(c, 1, arena, () -> await(listening)); // node 1 connects first: once node 0 listens
                } finally {
                    eal.unregisterThread();
                }
            }, "srdnic-xrc-node-1");
            other.start();
            try (Context c = Context.open(Device.dpdk(ring.a(), pool0), new ContextConfig().mode(ThreadingMode.INVOKER).ip(IP[0]))) {
                int mine = runNode(c, 0, arena, listening::countDown);
                other.join(timeLimitSeconds * 1000L + 30_000);
                return mine | status[0];
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    /**
     * Runs node {@code n} on {@code c} until it is done: node 1 connects first, node 0 once node 1
     * asked it. {@code listening} runs once the node listens (node 0 tells node 1 there; node 1 waits in it for node 0).
     */
    private int runNode(Context c, int n, Arena arena, Runnable listening) {
        XrcNode x = new XrcNode(c, n, IP[1 - n], port, jobs, messages, size, arena);
        listening.run();
        x.start(n == 1);
        long end = deadline();
        while (!x.done() && System.nanoTime() - end < 0) {
            x.step();
        }
        if (!x.done()) {
            x.failure = "node " + n + ": time limit of " + timeLimitSeconds + " s reached (" + x.delivered + " delivered)";
        }
        int status = report(x);
        x.close();
        return status;
    }

    /** memif: node 0's process, once it listens node 1's, which connects first; each prints its own report. */
    private int memif() {
        String socket = "/run/srdnic-xrc-" + ProcessHandle.current().pid() + ".sock";
        List<String> common = List.of("xrc-all-to-all", "--link", "memif", "--jobs", Integer.toString(jobs), "--messages",
            Integer.toString(messages), "--size", Integer.toString(size), "--port", Integer.toString(port), "--time-limit-s",
            Integer.toString(timeLimitSeconds));
        List<String> args0 = new ArrayList<>(common);
        args0.addAll(List.of("--node", "0", "--vdev", MemifSpec.of("server", socket)));
        List<String> args1 = new ArrayList<>(common);
        args1.addAll(List.of("--node", "1", "--vdev", MemifSpec.of("client", socket)));
        if (json) {
            args0.add("--json");
            args1.add("--json");
        }
        try (PeerProcess p0 = PeerProcess.start("node0", null, args0)) {
            p0.await("LISTENING", 60_000);
            try (PeerProcess p1 = PeerProcess.start("node1", null, args1)) {
                List<String> lines0 = new ArrayList<>();
                for (String line; (line = p0.next(timeLimitSeconds * 1000L + 30_000)) != PeerProcess.END && line != null; ) {
                    lines0.add(line);
                }
                for (String line; (line = p1.next(30_000)) != PeerProcess.END && line != null; ) {
                    lines0.add(line);
                }
                lines0.forEach(System.out::println);
                int s0 = p0.exitStatus(30_000);
                int s1 = p1.exitStatus(30_000);
                return s0 | s1;
            }
        }
    }

    /** A memif child: its own EAL and port; node 0 says LISTENING once its listener is up. */
    private int child() {
        try (Eal eal = Eal.start(new EalConfig().memoryMb(256)); Arena arena = Arena.ofShared();
             Context c = Context.open(Device.dpdk(vdev), new ContextConfig().mode(ThreadingMode.INVOKER).ip(IP[node]))) {
            return runNode(c, node, arena, () -> {
                if (node == 0) { // the parent starts node 1 once it reads this
                    System.out.println("LISTENING on port " + port);
                    System.out.flush();
                }
            });
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    private long deadline() {
        return System.nanoTime() + timeLimitSeconds * 1_000_000_000L;
    }

    private int report(XrcNode x) {
        long total = (long) jobs * jobs * messages;
        double setupMs = x.connectedNanos == 0 ? 0 : (x.connectedNanos - x.startNanos) / 1e6;
        double exchangeMs = x.exchangedNanos == 0 ? 0 : (x.exchangedNanos - x.connectedNanos) / 1e6;
        String clock = link == Link.sim ? " (wall time; the simulated network's own clock is virtual)" : "";
        System.out.printf("xrc-all-to-all over %s, node %d: %d jobs, %d QPs (%d XRC_SEND, %d XRC_RECV), %d of %d messages of %d B"
            + " delivered and checked, %d sends completed; set-up %.2f ms, exchange %.2f ms%s%n", link, x.node, jobs, x.qps(), jobs, jobs,
            x.delivered, total, size, x.sendsDone, setupMs, exchangeMs, clock);
        if (x.failure != null) {
            System.out.println("FAILED: " + x.failure);
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("link", link.name());
            m.put("node", x.node);
            m.put("jobs", jobs);
            m.put("qps_per_node", x.qps());
            m.put("messages", total);
            m.put("delivered", x.delivered);
            m.put("sends_completed", x.sendsDone);
            m.put("size", size);
            m.put("setup_ms", setupMs);
            m.put("exchange_ms", exchangeMs);
            m.put("msgs_per_sec", exchangeMs > 0 ? Math.round(x.delivered / (exchangeMs / 1000)) : null);
            m.put("failure", x.failure);
            System.out.println(Json.object(m));
        }
        return x.failure == null ? 0 : 1;
    }
}
