package io.srdnic.cli.rnbd;

import io.srdnic.cli.Json;
import io.srdnic.cli.pktgen.PeerProcess;
import io.srdnic.rtrs.client.ClientConfig;
import io.srdnic.rtrs.client.PathAddress;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.rtrs.server.RtrsServer;
import io.srdnic.rtrs.server.ServerConfig;
import io.srdnic.verbs.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic rtrs bench}: RTRS without RNBD or NBD. A server in a second process answers every
 * IO at once; this process drives 4 KiB and 128 KiB writes and reads over memif, at depth 1
 * (latency) and at --depth (rate). Two processes, as the gateway and server run.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "RTRS IO rate and latency over memif between two processes (4 KiB and 128 KiB, reads and writes).")
public final class RtrsBenchCommand implements Callable<Integer> {
    @Option(names = "--seconds", defaultValue = "2", description = "Per measurement (default ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--depth", defaultValue = "32", description = "IOs in flight for the rate runs (default ${DEFAULT-VALUE}).")
    int depth;

    @Option(names = "--paths", defaultValue = "1", description = "Paths, one memif link each (default ${DEFAULT-VALUE}).")
    int paths;

    @Option(names = "--json", description = "One JSON object on the last line.")
    boolean json;

    @Option(names = "--role", hidden = true, description = "The server child.")
    String role;

    @Option(names = "--memif-socket", hidden = true, description = "The server child's sockets.")
    List<String> sockets = new ArrayList<>();

    @Override
    public Integer call() {
        if ("server".equals(role)) {
            return server();
        }
        if (depth < 1 || depth > 128 || paths < 1 || paths > 8) {
            throw new IllegalArgumentException("--depth is 1..128, --paths 1..8");
        }
        List<String> socketPaths = new ArrayList<>();
        for (int i = 0; i < paths; i++) {
            socketPaths.add("/run/srdnic-rtrs-bench-" + ProcessHandle.current().pid() + "-" + i + ".sock");
        }
        List<String> args = new ArrayList<>(List.of("rtrs", "bench", "--role", "server"));
        for (String s : socketPaths) {
            args.addAll(List.of("--memif-socket", s));
        }
        Map<String, Object> results = new LinkedHashMap<>();
        try (PeerProcess server = PeerProcess.start("rtrs-bench-server", null, args)) {
            server.await("ready", 120_000);
            try (DpdkLinks links = DpdkLinks.open(RnbdServerCommand.specs("memif", socketPaths, List.of(), "client"),
                Ipv4.parse(NbdLocalCommand.GATEWAY_IP))) {
                List<PathAddress> addresses = new ArrayList<>();
                for (Context c : links.contexts()) {
                    addresses.add(new PathAddress(c, Ipv4.parse(NbdLocalCommand.SERVER_IP)));
                }
                try (RtrsClient client = RtrsClient.open(new ClientConfig().sessionName("rtrs-bench").ioConnections(1), addresses)) {
                    long end = System.nanoTime() + 30_000_000_000L;
                    while (!client.connected() && System.nanoTime() - end < 0) {
                        client.poll();
                    }
                    if (!client.connected()) {
                        throw new IllegalStateException("the RTRS session did not connect within 30 s");
                    }
                    RtrsBench bench = new RtrsBench(client);
                    long nanos = (long) (seconds * 1e9);
                    bench.run(false, 4096, depth, Math.min(nanos, 500_000_000L)); // warm-up: JIT, first-touch
                    for (int size : new int[] {4096, 128 << 10}) {
                        for (boolean read : new boolean[] {false, true}) {
                            for (int d : new int[] {1, depth}) {
                                long ios = bench.run(read, size, d, nanos);
                                String key = (read ? "read" : "write") + "_" + (size >> 10) + "k_qd" + d;
                                Map<String, Object> r = new LinkedHashMap<>();
                                r.put("iops", ios / seconds);
                                r.put("mib_s", ios * (double) size / seconds / (1 << 20));
                                r.put("p50_us", bench.latency.getValueAtPercentile(50) / 1000.0);
                                r.put("p99_us", bench.latency.getValueAtPercentile(99) / 1000.0);
                                results.put(key, r);
                                System.out.printf(Locale.ROOT, "%-16s %10.0f IOPS %9.1f MiB/s  p50 %8.1f us  p99 %8.1f us%n", key,
                                    ios / seconds, ios * (double) size / seconds / (1 << 20),
                                            bench.latency.getValueAtPercentile(50) / 1000.0,
                                    bench.latency.getValueAtPercentile(99) / 1000.0);
                            }
                        }
                    }
                }
            }
        }
        if (json) {
            System.out.println(Json.object(results));
        }
        return 0;
    }

    /** The child: an RTRS server whose handler answers every request at once (a read's data is the chunk as it is). */
    private int server() {
        ServeLoop loop = new ServeLoop(true);
        try (DpdkLinks links = DpdkLinks.open(RnbdServerCommand.specs("memif", sockets, List.of(), "server"),
            Ipv4.parse(NbdLocalCommand.SERVER_IP))) {
            // 256 KiB chunks: a 128 KiB IO fits (max IO is the chunk less its 4 KiB header room).
            try (RtrsServer server = RtrsServer.open(new ServerConfig().queueDepth(128).chunkSize(256 << 10), links.contexts(),
                io -> io.respond(0))) {
                System.out.println("ready");
                System.out.flush();
                loop.run(server::poll, links::quitRequested);
            }
        } finally {
            loop.finished();
        }
        return 0;
    }
}
