package io.srdnic.cli.cm;

import io.srdnic.cli.Json;
import io.srdnic.cli.net.MemifSpec;
import io.srdnic.cli.pktgen.PeerProcess;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.pmd.pcap.PcapWriter;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.ThreadingMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic cm-pingpong}: RC connections made through the connection manager alone — no side
 * channel — each carrying a ping-pong, then taken down. Reports how long connect took to
 * ESTABLISHED (this side, and both sides) and the round trips. sim and ring run both sides in this
 * process; memif starts a server and a client process that share nothing but the memif link.
 */
@Command(name = "cm-pingpong", mixinStandardHelpOptions = true,
    description = "RC ping-pong over connections made by the connection manager; reports connection set-up time.")
public final class CmPingPongCommand implements Callable<Integer> {
    static final int SERVER_IP = 0x0A00_0001;
    static final int CLIENT_IP = 0x0A00_0002;
    private static final AtomicInteger RUNS = new AtomicInteger();

    enum Link { sim, ring, memif }

    enum Role { server, client }

    @Option(names = "--link", defaultValue = "sim", description = "sim | ring | memif (default ${DEFAULT-VALUE}).")
    Link link;

    @Option(names = "--connections", defaultValue = "20", description = "Connections made one after another (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--iters", defaultValue = "100", description = "Round trips per connection (default ${DEFAULT-VALUE}).")
    int iters;

    @Option(names = "--size", defaultValue = "64", description = "Message size in bytes, up to 4096 (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--port", defaultValue = "7471", description = "The service port the server listens on (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--time-limit-s", defaultValue = "120", description = "Give up after this many seconds (default ${DEFAULT-VALUE}).")
    int timeLimitSeconds;

    @Option(names = "--json", description = "Print one JSON object on the last line.")
    boolean json;

    @Option(names = "--pcap", description = "sim: write every frame (the CM's messages and the ping-pongs) to this pcap file,"
        + " for tshark with tools/wireshark/srdnic.lua.")
    Path pcap;

    @Option(names = "--role", hidden = true, description = "memif child: server or client")
    Role role;

    @Option(names = "--vdev", hidden = true, description = "memif child: its EAL device spec")
    String vdev;

    @Override
    public Integer call() {
        if (connections < 1 || iters < 1 || size < 8 || size > 4096) {
            throw new IllegalArgumentException("--connections and --iters must be positive, --size 8..4096");
        }
        if (pcap != null && link != Link.sim) {
            throw new IllegalArgumentException("--pcap captures --link sim; on ring and memif use a capture of the link (e.g. "
                    + "dpdk-dumpcap)");
        }
        if (role != null) {
            return child();
        }
        return switch (link) {
            case sim -> report(sim());
            case ring -> report(ring());
            case memif -> memif();
        };
    }

    private CmPingPongClient sim() {
        try (PcapWriter capture = pcap == null ? null : new PcapWriter(pcap)) {
            return sim(capture);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + pcap + ": " + e.getMessage(), e);
        }
    }

    private CmPingPongClient sim(PcapWriter capture) {
        try (SimWorld world = new SimWorld(RUNS.incrementAndGet()); Arena arena = Arena.ofShared()) {
            if (capture != null) {
                world.captureTo(capture);
            }
            return sim(world, arena);
        }
    }

    private CmPingPongClient sim(SimWorld world, Arena arena) {
        try (Context serverContext = Context.open(Device.sim(world)); Context clientContext = Context.open(Device.sim(world))) {
            CmPingPongServer server = new CmPingPongServer(serverContext, port, size, connections, arena);
            CmPingPongClient client = new CmPingPongClient(clientContext, serverContext.ip(), port, size, iters, connections, arena);
            long end = System.nanoTime() + timeLimitSeconds * 1_000_000_000L;
            while (!client.done() && System.nanoTime() - end < 0) {
                client.step();
                server.step();
            }
            while (client.failure == null && !server.done() && System.nanoTime() - end < 0) {
                server.step(); // its last TIMEWAIT
                clientContext.progress();
            }
            client.close();
            server.close();
            return client;
        }
    }

    private CmPingPongClient ring() {
        Eal eal = Eal.startOrGet(new EalConfig());
        int run = RUNS.incrementAndGet();
        try (RingLink ring = RingLink.create(1024);
             MbufPool poolA = MbufPool.create("cmpa" + run, 8191, 4096 + 256);
             MbufPool poolB = MbufPool.create("cmpb" + run, 8191, 4096 + 256);
             Arena arena = Arena.ofShared()) {
            ring.a().configure(PortConfig.DEFAULT, poolA).start();
            ring.b().configure(PortConfig.DEFAULT, poolB).start();
            Throwable[] serverFailure = new Throwable[1];
            Thread serverThread = new Thread(() -> {
                // the context is opened on the thread that polls it: INVOKER registers that thread with DPDK
                try (Context c = Context.open(Device.dpdk(ring.b(), poolB), new ContextConfig().mode(ThreadingMode.INVOKER)
                        .ip(SERVER_IP))) {
                    CmPingPongServer server = new CmPingPongServer(c, port, size, connections, arena);
                    long end = System.nanoTime() + timeLimitSeconds * 1_000_000_000L;
                    while (!server.done() && System.nanoTime() - end < 0) {
                        server.step();
                    }
                    server.close();
                } catch (Throwable t) {
                    serverFailure[0] = t;
                } finally {
                    eal.unregisterThread();
                }
            }, "srdnic-cm-server");
            serverThread.start();
            try (Context c = Context.open(Device.dpdk(ring.a(), poolA), new ContextConfig().mode(ThreadingMode.INVOKER).ip(CLIENT_IP))) {
                CmPingPongClient client = runClient(c);
                serverThread.join(30_000);
                if (serverFailure[0] != null && client.failure == null) {
                    client.failure = "server: " + serverFailure[0];
                }
                return client;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    private CmPingPongClient runClient(Context c) {
        try (Arena arena = Arena.ofShared()) {
            CmPingPongClient client = new CmPingPongClient(c, SERVER_IP, port, size, iters, connections, arena);
            long end = System.nanoTime() + timeLimitSeconds * 1_000_000_000L;
            while (!client.done() && System.nanoTime() - end < 0) {
                client.step();
            }
            if (!client.done() && client.failure == null) {
                client.failure = "time limit of " + timeLimitSeconds + " s reached";
            }
            client.close();
            return client;
        }
    }

    /** memif: a server child, once it listens a client child; the client's lines are the result. */
    private int memif() {
        String socket = "/run/srdnic-cm-" + ProcessHandle.current().pid() + ".sock";
        List<String> common = List.of("cm-pingpong", "--link", "memif", "--connections", Integer.toString(connections), "--iters",
            Integer.toString(iters), "--size", Integer.toString(size), "--port", Integer.toString(port), "--time-limit-s",
            Integer.toString(timeLimitSeconds));
        List<String> serverArgs = new ArrayList<>(common);
        serverArgs.addAll(List.of("--role", "server", "--vdev", MemifSpec.of("server", socket)));
        List<String> clientArgs = new ArrayList<>(common);
        clientArgs.addAll(List.of("--role", "client", "--vdev", MemifSpec.of("client", socket)));
        if (json) {
            clientArgs.add("--json");
        }
        try (PeerProcess server = PeerProcess.start("server", null, serverArgs)) {
            server.await("LISTENING", 60_000);
            try (PeerProcess client = PeerProcess.start("client", null, clientArgs)) {
                for (String line; (line = client.next(timeLimitSeconds * 1000L + 30_000)) != PeerProcess.END && line != null; ) {
                    System.out.println(line);
                }
                int clientStatus = client.exitStatus(30_000);
                int serverStatus = server.exitStatus(30_000);
                return clientStatus != 0 ? clientStatus : serverStatus;
            }
        }
    }

    /** A memif child: its own EAL and port; the server says LISTENING once its listener is up. */
    private int child() {
        try (Eal eal = Eal.start(new EalConfig().memoryMb(256)); Arena arena = Arena.ofShared()) {
            int ip = role == Role.server ? SERVER_IP : CLIENT_IP;
            try (Context c = Context.open(Device.dpdk(vdev), new ContextConfig().mode(ThreadingMode.INVOKER).ip(ip))) {
                if (role == Role.client) {
                    return report(runClient(c));
                }
                CmPingPongServer server = new CmPingPongServer(c, port, size, connections, arena);
                System.out.println("LISTENING on port " + port);
                System.out.flush();
                long end = System.nanoTime() + timeLimitSeconds * 1_000_000_000L;
                while (!server.done() && System.nanoTime() - end < 0) {
                    server.step();
                }
                server.close();
                return server.done() ? 0 : 1;
            }
        }
    }

    private int report(CmPingPongClient client) {
        int made = Math.max(1, client.completed());
        long[] own = Arrays.copyOf(client.ownSetup, made);
        long[] both = Arrays.copyOf(client.bothSetup, made);
        long[] rtt = Arrays.copyOf(client.roundTrips, client.roundTripCount());
        Arrays.sort(own);
        Arrays.sort(both);
        Arrays.sort(rtt);
        String clock = link == Link.sim ? " (virtual time)" : "";
        System.out.printf("cm-pingpong over %s%s: %d connections through the CM, %d round trips of %d B each%n", link, clock, connections,
            iters, size);
        System.out.printf("connection set-up, connect -> ESTABLISHED: this side median %.1f us (min %.1f, max %.1f); both sides median"
            + " %.1f us (min %.1f, max %.1f)%n", us(median(own)), us(own[0]), us(own[made - 1]), us(median(both)), us(both[0]),
            us(both[made - 1]));
        if (rtt.length > 0) {
            System.out.printf("round trip: median %.2f us over %d%n", us(median(rtt)), rtt.length);
        }
        System.out.printf("requests tried again before the server was up: %d%n", client.retries);
        if (client.failure != null) {
            System.out.println("FAILED: " + client.failure);
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("link", link.name());
            m.put("connections", connections);
            m.put("iters", iters);
            m.put("size", size);
            m.put("setup_own_median_us", us(median(own)));
            m.put("setup_both_median_us", us(median(both)));
            m.put("setup_both_max_us", us(both[made - 1]));
            m.put("rtt_median_us", rtt.length > 0 ? us(median(rtt)) : null);
            m.put("round_trips", rtt.length);
            m.put("retries", client.retries);
            m.put("failure", client.failure);
            System.out.println(Json.object(m));
        }
        return client.failure == null ? 0 : 1;
    }

    private static long median(long[] sorted) {
        return sorted.length == 0 ? 0 : sorted[sorted.length / 2];
    }

    private static double us(long nanos) {
        return nanos / 1000.0;
    }
}
