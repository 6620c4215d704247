package io.srdnic.cli.perf;

import io.srdnic.cli.pktgen.LatencySummary;
import io.srdnic.cli.pktgen.PingPongInitiator;
import io.srdnic.cli.pktgen.PingPongReflector;
import io.srdnic.cli.pktgen.PingPongRun;
import io.srdnic.cli.pktgen.Progress;
import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.verbs.Context;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The two sides of a perf run over a DPDK port, each on its own thread or process, talking over a
 * {@link Channel}. The client leads; every step is one line:
 * <pre>
 *  client                                   server
 *  PARAMS mode=lat transport=srd ...   ──►  opens its port
 *                                      ◄──  READY
 *  opens its port, waits for link up
 *  RAW                                 ──►  starts reflecting           (latency mode: raw ping-pong
 *                                      ◄──  RAW_READY 02:..:01            with frames of size + 90 B,
 *  pings N times, raw round trips                                       on the same ports, first)
 *  RAW_END                             ──►  stops, drains its RX queue
 *                                      ◄──  RAW_ENDED
 *  opens its context, QPs              ──►  INFO mac= ip= port= qkey= qpns=
 *                                      ◄──  INFO ... (its context, QPs, receives posted)
 *  runs the test
 *  END sent                            ──►  waits for stragglers
 *                                      ◄──  RESULT received= measured= first_ns= last_ns= errors=
 *  SUMMARY {json}                      ──►  prints it (--server)
 *  closes its context                       closes its context
 *  QUIESCED                            ◄─►  QUIESCED                    (then each closes its port)
 * </pre>
 * Contexts are opened after the raw phase: a DEDICATED dataplane would otherwise take the raw frames.
 */
final class PerfSession {
    private PerfSession() {
    }

    // ---------------------------------------------------------------- client

    static PerfResult client(Channel ch, PerfParams p, SideConfig side) {
        return side.pinnedWhile(() -> pinnedClient(ch, p, side));
    }

    private static PerfResult pinnedClient(Channel ch, PerfParams p, SideConfig side) {
        long limitMs = p.timeLimitNanos() / 1_000_000;
        long deadline = System.nanoTime() + p.timeLimitNanos();
        ch.send("PARAMS " + p.line());
        ch.expect("READY", limitMs);
        try (PerfPort port = side.openPort()) {
            if (port != null && !p.op().rdma() && !p.transport().connected && p.size() > port.srdMtu()) {
                throw new IllegalArgumentException("--size " + p.size() + " is over this link's SRD MTU " + port.srdMtu());
            }
            LatencySummary raw = null;
            if (port != null) { // attached, the port is the dataplane's: no link to wait for, no raw frames to send
                PingPongRun.awaitLink(port.port, side.eal(), deadline);
                // An RDMA or RC message longer than a packet has no raw frame of its length to compare with.
                raw = p.raw() && p.size() <= port.srdMtu() ? rawInitiator(ch, p, side, port, deadline, limitMs) : null;
            }
            Context ctx = side.openContext(port, p.runId() * 31L + 2, p.size());
            PerfResult result;
            try (PerfEndpoint ep = new PerfEndpoint(ctx, p, 0x5352_4443, true)) {
                if (ep.bothWays()) { // SRC: the server's XRC_SEND QPs connect to this side's XRC_RECV QPs once it has this INFO
                    ep.listenCm();
                }
                ch.send("INFO " + ep.info().line());
                PeerInfo peer = PeerInfo.parse(ch.expect("INFO", limitMs));
                if (p.transport().connected) { // the server listens before it tells its INFO
                    ep.connectCm(peer.ip()).await(deadline);
                }
                ep.connect(peer);
                PerfClient client = p.latency() ? new LatencyClient(ep, System::nanoTime) : new BandwidthClient(ep, System::nanoTime);
                runClient(client, p, side, deadline, ch);
                ch.send("END " + client.sent());
                ServerCounts server = ServerCounts.parse(ch.expect("RESULT", limitMs));
                result = result(p, side.link(), side.threading().name(), SideConfig.cpusOfThisThread(), false, client, raw,
                    server, ep.checkPayload(), p.stats() ? statsLines("client", ctx) : List.of());
                ch.send("SUMMARY " + result.json());
            }
            quiesce(ch, limitMs);
            return result;
        }
    }

    /**
     * Called once this side's context is closed (nothing of it polls the port any more): tells the
     * other side so and waits until it says the same, and only then lets the port close. A memif end
     * that closes while its peer is still inside rx_burst makes the peer's memif driver unmap the
     * rings under that burst (SIGSEGV in the peer); both closing after the barrier rules that out.
     */
    static void quiesce(Channel ch, long limitMs) {
        ch.send("QUIESCED");
        ch.expect("QUIESCED", limitMs);
    }

    private static LatencySummary rawInitiator(Channel ch, PerfParams p, SideConfig side, PerfPort port, long deadline, long limitMs) {
        ch.send("RAW");
        long peerMac = MacAddress.parse(ch.expect("RAW_READY", limitMs).trim());
        try (Arena arena = Arena.ofConfined()) {
            PacketIo io = port.io();
            // Frames as long as the SRD run's: the message plus Ethernet, IPv4, UDP and SRD headers.
            PingPongInitiator ping = new PingPongInitiator(io, arena, peerMac, PerfResult.frameLength(p.size()), p.runId(), p.iters(),
                p.warmup(), p.warmupNanos(), Math.max(p.timeoutNanos(), 100_000_000L));
            LatencySummary raw = PingPongRun.initiate(ping, side.eal(), deadline, new Progress("perf raw ping-pong", p.total()));
            ch.send("RAW_END");
            ch.expect("RAW_ENDED", limitMs);
            PingPongReflector.drain(io, new MbufBatch(arena));
            return raw;
        }
    }

    /**
     * Runs the client until it is done; fails on its first error completion, at the time limit, or
     * when the server says on the side channel that it failed (a reply that failed there, say an
     * RC QP gone to ERROR, would otherwise leave this side waiting for it until the time limit).
     */
    static void runClient(PerfClient client, PerfParams p, SideConfig side, long deadline, Channel ch) {
        Progress progress = new Progress("perf " + p.mode() + " " + p.transport(), p.total());
        boolean dpdk = side.eal() != null;
        if (dpdk) {
            side.eal().enterLoop();
        }
        try {
            int spins = 0;
            int idle = 0;
            boolean yieldWhenIdle = side.yieldsWhenIdle();
            while (!client.done()) {
                idle = client.doWork() > 0 ? 0 : idle + 1;
                if (yieldWhenIdle && idle > 100) {
                    Thread.yield(); // let this process's dataplane thread have the core
                }
                if ((++spins & 0x3FF) == 0) {
                    progress.update(client.progress(), client.total());
                    if (client.errors() > 0) {
                        throw new IllegalStateException("a completion failed with " + client.firstError() + " after " + client.progress()
                            + " of " + p.total() + (p.transport().reliable
                                ? ": the server is unreachable or refused it (is --size over what the link carries?)" : ""));
                    }
                    if (System.nanoTime() - deadline > 0 || (dpdk && side.eal().quitRequested())) {
                        throw new IllegalStateException("perf did not finish within its time limit: " + client.progress() + " of "
                                + client.total()
                            + " done" + (client.errors() > 0 ? ", first error " + client.firstError() : ""));
                    }
                    String line = ch.poll();
                    if (line != null) {
                        throw new IllegalStateException(line.startsWith("ERROR ") ? "the server failed after " + client.progress() + " of "
                            + p.total() + ": " + line.substring(6) : "side channel: nothing expected during the run, got '" + line + "'");
                    }
                }
            }
        } finally {
            if (dpdk) {
                side.eal().exitLoop();
            }
        }
    }

    /**
     * The run's result from the client's side and the server's counts; where the server sees no
     * message arrive (RDMA but a latency-mode WRITE WITH_IMM), the client's completions count them.
     */
    static PerfResult result(PerfParams p, String link, String threading, String clientCpus, boolean virtualTime, PerfClient client,
                             LatencySummary raw, ServerCounts server, PayloadCheck clientCheck, List<String> stats) {
        LatencySummary latency = client instanceof LatencyClient lc ? lc.summary() : null;
        ServerCounts arrived = p.serverReceives() ? server : client.landed(server);
        double rate = latency != null ? latency.perSecond() : arrived.arrivalRate();
        PerfParams asRun = client instanceof LatencyClient lc ? p.withWarmup(lc.warmup()) : p;
        return new PerfResult(asRun, link, threading, clientCpus, virtualTime, latency, raw, rate, client.sent(), arrived,
            client.errors(), client.firstError(), clientCheck, stats);
    }

    static List<String> statsLines(String side, Context ctx) {
        List<String> lines = new ArrayList<>();
        lines.add("  " + side + " counters:");
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Long> e : ctx.counters().entrySet()) {
            if (e.getValue() != 0) {
                if (sb.length() > 90) {
                    lines.add("    " + sb.toString().trim());
                    sb.setLength(0);
                }
                sb.append(e.getKey()).append('=').append(e.getValue()).append("  ");
            }
        }
        if (sb.length() > 0) {
            lines.add("    " + sb.toString().trim());
        }
        for (String l : ctx.contextReport()) {
            lines.add("    " + l);
        }
        return lines;
    }

    // ---------------------------------------------------------------- server

    /** Serves one run: the client's parameters, the raw phase if asked, the test, the result. */
    static void server(Channel ch, SideConfig side, long acceptTimeoutMillis) {
        side.pinnedWhile(() -> {
            pinnedServer(ch, side, acceptTimeoutMillis);
            return null;
        });
    }

    private static void pinnedServer(Channel ch, SideConfig side, long acceptTimeoutMillis) {
        PerfParams p = PerfParams.parse(ch.expect("PARAMS", acceptTimeoutMillis));
        long limitMs = p.timeLimitNanos() / 1_000_000;
        long deadline = System.nanoTime() + p.timeLimitNanos();
        PerfPort port;
        try {
            port = side.openPort();
        } catch (RuntimeException e) {
            ch.send("ERROR server could not open its port: " + e.getMessage());
            throw e;
        }
        try (port) {
            if (port != null && !p.op().rdma() && !p.transport().connected && p.size() > port.srdMtu()) {
                String msg = "--size " + p.size() + " is over the server's SRD MTU " + port.srdMtu();
                ch.send("ERROR " + msg);
                throw new IllegalArgumentException(msg);
            }
            ch.send("READY");
            String line = ch.take(limitMs);
            if (line.equals("RAW") && port != null) {
                rawReflector(ch, p, side, port);
                line = ch.take(limitMs);
            }
            if (!line.startsWith("INFO ")) {
                throw new IllegalStateException("side channel: expected INFO, got '" + line + "'");
            }
            PeerInfo peer = PeerInfo.parse(line.substring(5));
            Context ctx = side.openContext(port, p.runId() * 31L + 1, p.size());
            try (PerfEndpoint ep = new PerfEndpoint(ctx, p, 0x5352_4453, false)) {
                PerfCmConnector cm = p.transport().connected ? ep.listenCm() : null;
                ch.send("INFO " + ep.info().line());
                if (ep.bothWays()) { // SRC: the client listened before it told its INFO, and polls its CM once it has this one
                    ep.connectCm(peer.ip());
                }
                if (cm != null) {
                    cm.await(deadline); // RC: the client's region comes in its requests' private data
                }
                ep.connect(peer);
                Responder responder = new Responder(ep, System::nanoTime);
                long sent = respond(ch, responder, side, deadline);
                ch.send("RESULT " + responder.resultLine());
                String summary = ch.expect("SUMMARY", limitMs);
                if (p.stats()) {
                    for (String s : statsLines("server", ctx)) {
                        System.err.println(s);
                    }
                }
                if (side.printSummary()) {
                    System.err.println("perf server: served " + responder.received() + " of " + sent + " messages");
                    System.out.println(summary);
                }
            }
            quiesce(ch, limitMs);
        }
    }

    private static void rawReflector(Channel ch, PerfParams p, SideConfig side, PerfPort port) {
        try (Arena arena = Arena.ofConfined()) {
            PacketIo io = port.io();
            ch.send("RAW_READY " + MacAddress.format(io.macAddress()));
            PingPongRun.reflect(io, arena, p.runId(), side.eal(), () -> {
                String l = ch.poll();
                if (l == null) {
                    return false;
                }
                if (l.equals("RAW_END")) {
                    return true;
                }
                throw new IllegalStateException("side channel: expected RAW_END, got '" + l + "'");
            });
            ch.send("RAW_ENDED");
        }
    }

    /**
     * Runs the responder until the client's END (the number it sent); then, if they take a receive
     * here, until that many arrived or 200 ms pass quietly.
     */
    private static long respond(Channel ch, Responder responder, SideConfig side, long deadline) {
        boolean dpdk = side.eal() != null;
        if (dpdk) {
            side.eal().enterLoop();
        }
        try {
            int spins = 0;
            int idle = 0;
            boolean yieldWhenIdle = side.yieldsWhenIdle();
            long sent = -1;
            while (sent < 0) {
                idle = responder.doWork() > 0 ? 0 : idle + 1;
                if (yieldWhenIdle && idle > 100) {
                    Thread.yield();
                }
                if ((++spins & 0xFF) == 0) {
                    String l = ch.poll();
                    if (l != null) {
                        if (!l.startsWith("END ")) {
                            throw new IllegalStateException("side channel: expected END, got '" + l + "'");
                        }
                        sent = Long.parseLong(l.substring(4).trim());
                    } else if (System.nanoTime() - deadline > 0 || (dpdk && side.eal().quitRequested())) {
                        throw new IllegalStateException("the client did not finish within the time limit");
                    } else if (responder.errors() > 0) {
                        throw new IllegalStateException("a completion failed at the server with " + responder.firstError());
                    }
                }
            }
            long quietSince = System.nanoTime();
            while (responder.awaiting(sent)) {
                long now = System.nanoTime();
                if (responder.doWork() > 0) {
                    quietSince = now;
                } else if (now - quietSince > 200_000_000L) {
                    break;
                }
            }
            return sent;
        } finally {
            if (dpdk) {
                side.eal().exitLoop();
            }
        }
    }
}
