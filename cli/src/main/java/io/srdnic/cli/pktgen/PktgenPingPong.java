package io.srdnic.cli.pktgen;

import io.srdnic.cli.Json;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code srdnic pktgen --mode pingpong}: one frame bounced between the two sides N times (a
 * reflector swaps its MACs and sends it back), round-trip times reported: the raw link's latency,
 * the baseline {@code srdnic perf} compares SRD with. Ring in this process (one thread plays both
 * sides); memif, af_xdp and af_packet one JVM per side.
 */
public final class PktgenPingPong {
    private final PktgenCommand cmd;
    private final PktgenCommand.Link link;
    private final PktgenCommand.Role role;
    private final long iters;
    private final int size;
    private final int timeoutMs;
    private final int memoryMb;
    private final int timeLimitSeconds;
    private final boolean json;
    private final String peerMac;
    private Long warmup;
    private int runId;

    PktgenPingPong(PktgenCommand cmd) {
        this.cmd = cmd;
        this.link = cmd.link;
        this.role = cmd.role;
        this.iters = cmd.iters;
        this.size = cmd.size;
        this.timeoutMs = cmd.timeoutMs;
        this.memoryMb = cmd.memoryMb;
        this.timeLimitSeconds = cmd.timeLimitSeconds;
        this.json = cmd.json;
        this.peerMac = cmd.peerMac;
        this.warmup = cmd.warmup;
        this.runId = cmd.runId;
    }

    int call() {
        if (iters < 1 || iters > 1_000_000_000L) {
            throw new IllegalArgumentException("--iters must be 1..1000000000, was " + iters);
        }
        if (size < PktgenFrame.MIN_LENGTH || size > 9000) {
            throw new IllegalArgumentException("--size must be " + PktgenFrame.MIN_LENGTH + "..9000 bytes for pingpong, was " + size);
        }
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("--timeout-ms must be at least 1, was " + timeoutMs);
        }
        if (warmup == null) {
            warmup = defaultWarmup(iters);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must not be negative, was " + warmup);
        }
        if (link == PktgenCommand.Link.tap) {
            throw new IllegalArgumentException("--mode pingpong runs over ring, memif, af_xdp or af_packet, not tap");
        }
        if (role == PktgenCommand.Role.ping || role == PktgenCommand.Role.reflect) {
            return runPingPongSide();
        }
        if (role != null) {
            throw new IllegalArgumentException("--role " + role + " is a stream role; pingpong sides are ping and reflect");
        }
        runId = ThreadLocalRandom.current().nextInt();
        System.err.printf("pktgen: ping-pong of one %d-byte frame, %d round trips (+%d warm-up) over %s%n", size, iters, warmup, link);
        LatencySummary s = link == PktgenCommand.Link.ring ? runPingPongRing() : runPingPongTwoProcesses();
        System.out.printf(Locale.ROOT, "pingpong %s %d B: %s  %.0f round trips/s%n", link, size, s.text(), s.perSecond());
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("mode", "pingpong");
            m.put("link", link.name());
            m.put("size", size);
            m.put("iters", iters);
            m.put("warmup", warmup);
            m.putAll(s.fields());
            m.put("round_trips_per_sec", s.perSecond());
            System.out.println(Json.object(m));
        }
        if (s.count() == 0 || s.lost() * 100 > iters) {
            System.err.println("pktgen: FAILED: " + s.lost() + " of " + iters + " frames did not come back within " + timeoutMs + " ms");
            return 1;
        }
        return 0;
    }

    /**
     * Round trips run before measuring when none are asked for: as many as are measured, at least
     * 1000 and at most 20000. The polling loops must be JIT-compiled before they are timed, and on
     * two busy cores the compiler threads get little time.
     */
    public static long defaultWarmup(long iterations) {
        return Math.max(1000, Math.min(20_000, iterations));
    }

    private LatencySummary runPingPongRing() {
        // The process's EAL (started if none is, cleaned up at exit): a ping-pong may follow other runs in one JVM.
        Eal eal = Eal.startOrGet(cmd.ealConfig());
        try (Arena arena = Arena.ofConfined();
             RingPair ring = new RingPair(cmd.frameRoom())) {
            PacketIo a = ring.a;
            PacketIo b = ring.b;
            cmd.checkFits(a);
            // One thread plays both sides in turn: the reflector answers in the same loop that pings.
            PingPongInitiator ping = new PingPongInitiator(a, arena, b.macAddress(), size, runId, iters, warmup, 0, timeoutMs * 1_000_000L);
            PingPongReflector reflect = new PingPongReflector(b, arena, runId);
            long deadline = System.nanoTime() + timeLimitSeconds * 1_000_000_000L;
            Progress progress = new Progress("pktgen pingpong", warmup + iters);
            eal.enterLoop();
            try {
                int spins = 0;
                while (!ping.done()) {
                    ping.doWork();
                    reflect.doWork();
                    if ((++spins & 0x3FF) == 0) {
                        progress.update(ping.progress());
                        if (System.nanoTime() > deadline || eal.quitRequested()) {
                            throw new IllegalStateException("ping-pong did not finish within --time-limit-s " + timeLimitSeconds);
                        }
                    }
                }
            } finally {
                eal.exitLoop();
            }
            return ping.summary();
        }
    }

    private LatencySummary runPingPongTwoProcesses() {
        try (TwoProcessLink ends = TwoProcessLink.open(link, size)) {
            List<String> common = List.of("pktgen", "--mode", "pingpong", "--iters", Long.toString(iters), "--warmup",
                    Long.toString(warmup),
                "--size", Integer.toString(size), "--timeout-ms", Integer.toString(timeoutMs), "--run-id", Integer.toString(runId),
                "--memory-mb", Integer.toString(memoryMb), "--time-limit-s", Integer.toString(timeLimitSeconds), "--link", link.name());
            try (PeerProcess reflector = PeerProcess.start("reflector", ends.serverNamespace(),
                PktgenCommand.with(common, "--role", "reflect", "--vdev", ends.serverSpec()))) {
                String mac = reflector.await("READY ", 60_000).substring("READY ".length()).trim();
                try (PeerProcess initiator = PeerProcess.start("initiator", ends.clientNamespace(),
                    PktgenCommand.with(common, "--role", "ping", "--vdev", ends.clientSpec(), "--peer-mac", mac))) {
                    Map<String, String> result = FlatJson.parse(initiator.await("{", (timeLimitSeconds + 30) * 1000L));
                    reflector.send("DONE 0");
                    reflector.await("{", 30_000);
                    return LatencySummary.parse(result);
                }
            }
        }
    }

    /** One side of a two-process ping-pong: the reflector prints READY and its MAC, the initiator its round trips as JSON. */
    private int runPingPongSide() {
        return cmd.onSidePort((eal, arena, io, port, stdin, deadline) -> {
            if (role == PktgenCommand.Role.reflect) {
                System.out.println("READY " + MacAddress.format(io.macAddress()));
                System.out.flush();
                PingPongReflector r = PingPongRun.reflect(io, arena, runId, eal,
                    () -> stdin.doneSent() >= 0 || stdin.closed() || System.nanoTime() > deadline);
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("reflected", r.reflected());
                m.put("foreign", r.foreign());
                System.out.println(Json.object(m));
                return 0;
            }
            if (peerMac == null) {
                throw new IllegalArgumentException("--role ping needs --peer-mac");
            }
            PingPongRun.awaitLink(port, eal, deadline);
            PingPongInitiator ping = new PingPongInitiator(io, arena, MacAddress.parse(peerMac), size, runId, iters, warmup, 0,
                timeoutMs * 1_000_000L);
            LatencySummary s = PingPongRun.initiate(ping, eal, deadline, new Progress("pktgen pingpong", warmup + iters));
            System.err.println("pktgen ping: port stats " + port.stats() + ", stale frames " + ping.stale() + ", lost in warm-up "
                + ping.warmupLost());
            System.out.println(Json.object(s.fields()));
            return 0;
        });
    }
}
