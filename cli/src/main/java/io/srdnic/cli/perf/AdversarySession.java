package io.srdnic.cli.perf;

import io.srdnic.cli.adversary.Attack;
import io.srdnic.cli.adversary.AttackFrames;
import io.srdnic.cli.adversary.AttackTarget;
import io.srdnic.cli.adversary.Attacker;
import io.srdnic.cli.adversary.FrameSink;
import io.srdnic.cli.adversary.InjectorSink;
import io.srdnic.cli.adversary.RawPacketSocket;
import io.srdnic.cli.adversary.StreamLedger;
import io.srdnic.cli.adversary.VictimCounters;
import io.srdnic.cli.adversary.WireTap;
import io.srdnic.cli.pktgen.PingPongRun;
import io.srdnic.cli.pktgen.Progress;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.PortStats;
import io.srdnic.pmd.fault.FaultInjectingPacketIo;
import io.srdnic.pmd.fault.InjectingPacketIo;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.Device;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * The two sides of an adversary run, each on its own DPDK port, talking over a {@link Channel}: the
 * victim (which leads, is attacked, and reports) and its peer. Both run a {@link VerifiedStream} at
 * the other, so the victim's transport is attacked as a responder (data from the peer) and as a
 * requester (ACKs from the peer) at once. Every step is one line:
 * <pre>
 *  victim                                     peer
 *  PARAMS size= window= stream_ns= ...   ──►  opens its port, context, QP, posts its receives
 *                                        ◄──  INFO mac= ip= port= qkey= qpns=
 *  opens its port under the attacker's
 *  decorators, its context, QP
 *  INFO ...                              ──►  addresses the victim's QP
 *                                        ◄──  READY
 *  GO                                    ──►  both stream for stream_ns; the attacker
 *                                             sends at the victim meanwhile; then each waits
 *                                             (drain_ns at most) for its last sends to complete
 *  DONE sent                             ──►
 *                                        ◄──  DONE sent             (each serves the other until both are done)
 *                                        ◄──  LEDGER sent= completions= delivered= ...
 *  judges both directions, reads its
 *  transport's counters
 *  END                                   ──►
 *  closes its context                         closes its context
 *  QUIESCED                              ◄─►  QUIESCED                (then each closes its port)
 * </pre>
 */
final class AdversarySession {
    static final int VICTIM_QKEY = 0x5352_4456;
    static final int PEER_QKEY = 0x5352_4450;

    /** How the victim is attacked: which classes, how fast, seeded how, the loss on its link, and where frames enter. */
    record AttackPlan(Set<Attack> attacks, double rate, long seed, double loss, String injectNamespace, String injectInterface,
                      int injectMaxFrame, String victimInterface) {
        boolean rawSocket() {
            return injectNamespace != null;
        }
    }

    private AdversarySession() {
    }

    /** The side channel during the run, with room for a line that came early (the other side's DONE while this one drains). */
    private static final class Lines {
        final Channel ch;
        String early;

        Lines(Channel ch) {
            this.ch = ch;
        }

        String poll() {
            String l = early;
            if (l != null) {
                early = null;
                return l;
            }
            return ch.poll();
        }
    }

    // ---------------------------------------------------------------- victim

    static AdversaryReport victim(Channel ch, AdversaryParams p, SideConfig side, AttackPlan plan) {
        return side.pinnedWhile(() -> pinnedVictim(ch, p, side, plan));
    }

    private static AdversaryReport pinnedVictim(Channel ch, AdversaryParams p, SideConfig side, AttackPlan plan) {
        long limitMs = p.timeLimitNanos() / 1_000_000;
        long deadline = System.nanoTime() + p.timeLimitNanos();
        ch.send("PARAMS " + p.line());
        PeerInfo peer = PeerInfo.parse(ch.expect("INFO", limitMs));
        try (PerfPort port = side.opener().get()) {
            PingPongRun.awaitLink(port.port, side.eal(), deadline);
            // The victim's port, bottom up: the lossy link, the attacker's sniffer, the injection point.
            PacketIo io = port.io();
            FaultInjectingPacketIo lossy = plan.loss() > 0 ? new FaultInjectingPacketIo(io, plan.loss(), plan.seed() ^ 0x10_55L) : null;
            WireTap tap = new WireTap(lossy != null ? lossy : io, side.ip(), peer.ip(), peer.udpPort());
            InjectingPacketIo injector = plan.rawSocket() ? null : new InjectingPacketIo(tap);
            PacketIo top = injector != null ? injector : tap;
            Context ctx = Context.open(Device.of(port.port.name(), top, System::nanoTime), side.contextConfig(p.runId() * 31L + 2));
            AdversaryReport report;
            try (VerifiedStream stream = new VerifiedStream(ctx, p.size(), p.window(), p.recvDepth(), VICTIM_QKEY, p.streamId(true))) {
                stream.connect(peer, p.streamId(false));
                ch.send("INFO " + stream.info().line());
                ch.expect("READY", limitMs);
                int maxFrame = plan.rawSocket() ? plan.injectMaxFrame() : top.maxFrameLength();
                AttackTarget target = new AttackTarget(ctx.mac(), ctx.ip(), stream.qp.qpNum(), VICTIM_QKEY, peer.mac(), peer.ip(),
                    peer.qpns()[0], peer.qkey(), ctx.udpPort(), ctx.mtu(), maxFrame);
                try (Arena arena = Arena.ofShared();
                     FrameSink sink = plan.rawSocket() ? RawPacketSocket.open(plan.injectNamespace(), plan.injectInterface())
                         : new InjectorSink(injector);
                     Attacker attacker = new Attacker(new AttackFrames(target, tap, arena), sink, plan.attacks(),
                             plan.rate(), plan.seed())) {
                    System.err.println("adversary: " + Attack.listLine(plan.attacks()) + " at " + (long) plan.rate() + " frames/s through "
                        + sink.describe());
                    RxDrops rxDrops = new RxDrops(port, plan.victimInterface());
                    long start = System.nanoTime();
                    Lines lines = new Lines(ch);
                    ch.send("GO");
                    attacker.start();
                    stream(lines, stream, side, p, start, deadline, attacker, "victim");
                    attacker.close();
                    if (attacker.failure() != null) {
                        throw new IllegalStateException("the attacker failed: " + attacker.failure(), attacker.failure());
                    }
                    drain(lines, stream, side, p, start + p.streamNanos(), deadline);
                    ch.send("DONE " + stream.ledger.sent());
                    serveUntil(lines, stream, side, "DONE", deadline);
                    StreamLedger peerLedger = StreamLedger.parse(serveUntil(lines, stream, side, "LEDGER", deadline));
                    settle(stream, side, deadline);
                    Map<String, Long> counters = ctx.counters();
                    long seconds = System.nanoTime() - start;
                    ch.send("END");
                    report = new AdversaryReport(side.link(), p, plan, seconds, StreamLedger.judge(stream.ledger, peerLedger),
                        StreamLedger.judge(peerLedger, stream.ledger), attacker.sentByClass(), attacker.refusedByClass(), sink.injected(),
                        injector != null ? injector.refused() : ((RawPacketSocket) sink).refused(),
                        plan.rawSocket() ? ((RawPacketSocket) sink).lastError() : null, counters,
                        lossy != null ? lossy.injectedDrops() : 0, rxDrops.since(), VictimCounters.peakRssMb());
                }
            }
            PerfSession.quiesce(ch, limitMs);
            return report;
        }
    }

    /**
     * Frames the victim's link dropped on the way in, where the transport never saw them: what its
     * DPDK port counted as missed or unreceivable and, under an af_xdp port, the kernel interface's
     * receive drops (an AF_XDP socket whose ring is full makes the kernel drop and count the frame).
     */
    private static final class RxDrops {
        private final PerfPort port;
        private final Path kernel;
        private final long atStart;

        RxDrops(PerfPort port, String iface) {
            this.port = port;
            this.kernel = iface == null ? null : Path.of("/sys/class/net", iface, "statistics", "rx_dropped");
            this.atStart = now();
        }

        long since() {
            return now() - atStart;
        }

        private long now() {
            PortStats s = port.port.stats();
            long k = 0;
            if (kernel != null) {
                try {
                    k = Long.parseLong(Files.readString(kernel).trim());
                } catch (IOException | NumberFormatException e) {
                    // no such interface here: nothing to count
                }
            }
            return s.rxMissed() + s.rxErrors() + s.rxNoMbuf() + k;
        }
    }

    // ---------------------------------------------------------------- peer

    static void peer(Channel ch, SideConfig side, long acceptTimeoutMillis) {
        side.pinnedWhile(() -> {
            pinnedPeer(ch, side, acceptTimeoutMillis);
            return null;
        });
    }

    private static void pinnedPeer(Channel ch, SideConfig side, long acceptTimeoutMillis) {
        AdversaryParams p = AdversaryParams.parse(ch.expect("PARAMS", acceptTimeoutMillis));
        long limitMs = p.timeLimitNanos() / 1_000_000;
        long deadline = System.nanoTime() + p.timeLimitNanos();
        try (PerfPort port = side.opener().get()) {
            Context ctx = Context.open(Device.dpdk(port.port, port.pool), side.contextConfig(p.runId() * 31L + 1));
            try (VerifiedStream stream = new VerifiedStream(ctx, p.size(), p.window(), p.recvDepth(), PEER_QKEY, p.streamId(false))) {
                ch.send("INFO " + stream.info().line());
                stream.connect(PeerInfo.parse(ch.expect("INFO", limitMs)), p.streamId(true));
                ch.send("READY");
                ch.expect("GO", limitMs);
                long start = System.nanoTime();
                Lines lines = new Lines(ch);
                stream(lines, stream, side, p, start, deadline, null, "peer");
                drain(lines, stream, side, p, start + p.streamNanos(), deadline);
                ch.send("DONE " + stream.ledger.sent());
                serveUntil(lines, stream, side, "DONE", deadline);
                settle(stream, side, deadline);
                ch.send("LEDGER " + stream.ledger.line());
                serveUntil(lines, stream, side, "END", deadline);
            }
            PerfSession.quiesce(ch, limitMs);
        }
    }

    // ---------------------------------------------------------------- the loops

    /** Streams until {@code start + streamNanos}. */
    private static void stream(Lines ch, VerifiedStream stream, SideConfig side, AdversaryParams p, long start, long deadline,
                               Attacker attacker, String who) {
        Progress progress = new Progress("adversary " + who + " streaming, ms", p.streamNanos() / 1_000_000);
        long end = start + p.streamNanos();
        side.eal().enterLoop();
        try {
            int spins = 0;
            while (true) {
                stream.doWork(true);
                if ((++spins & 0x3FF) == 0) {
                    long now = System.nanoTime();
                    if (now - end >= 0) {
                        return;
                    }
                    progress.update((now - start) / 1_000_000);
                    check(ch, side, deadline, now);
                    if (attacker != null && attacker.failure() != null) {
                        throw new IllegalStateException("the attacker failed: " + attacker.failure(), attacker.failure());
                    }
                }
            }
        } finally {
            side.eal().exitLoop();
        }
    }

    /** Posts nothing more; serves until every send of this side has completed or {@code drain_ns} have passed since {@code from}. */
    private static void drain(Lines ch, VerifiedStream stream, SideConfig side, AdversaryParams p, long from, long deadline) {
        side.eal().enterLoop();
        try {
            int spins = 0;
            while (stream.inFlight() > 0) {
                stream.doWork(false);
                if ((++spins & 0x3FF) == 0) {
                    long now = System.nanoTime();
                    if (now - from - p.drainNanos() > 0) {
                        System.err.println("adversary: " + stream.inFlight() + " send(s) still without a completion after the drain");
                        return;
                    }
                    check(ch, side, deadline, now);
                }
            }
        } finally {
            side.eal().exitLoop();
        }
    }

    /** Serves the stream (the other side may still need ACKs) until the side channel brings {@code word}; returns the rest of its line. */
    private static String serveUntil(Lines ch, VerifiedStream stream, SideConfig side, String word, long deadline) {
        side.eal().enterLoop();
        try {
            int spins = 0;
            while (true) {
                stream.doWork(false);
                if ((++spins & 0xFF) == 0) {
                    String l = ch.poll();
                    if (l != null) {
                        if (l.startsWith("ERROR ")) {
                            throw new IllegalStateException("the other side failed: " + l.substring(6));
                        }
                        if (l.equals(word) || l.startsWith(word + " ")) {
                            return l.length() > word.length() ? l.substring(word.length() + 1) : "";
                        }
                        throw new IllegalStateException("side channel: expected " + word + ", got '" + abbreviate(l) + "'");
                    }
                    long now = System.nanoTime();
                    if (now - deadline > 0 || side.eal().quitRequested()) {
                        throw new IllegalStateException("no " + word + " from the other side within the time limit");
                    }
                }
            }
        } finally {
            side.eal().exitLoop();
        }
    }

    /**
     * Once both sides are done sending, takes the completions still queued: a message the transport
     * delivered (and acknowledged, so its sender saw SUCCESS) may still wait in this side's CQ, and
     * must be in the ledger before it is judged. Done when the CQ has stayed empty for 100 ms.
     */
    private static void settle(VerifiedStream stream, SideConfig side, long deadline) {
        side.eal().enterLoop();
        try {
            long quietSince = System.nanoTime();
            while (true) {
                long now = System.nanoTime();
                if (stream.doWork(false) > 0) {
                    quietSince = now;
                } else if (now - quietSince > 100_000_000L || now - deadline > 0) {
                    return;
                }
            }
        } finally {
            side.eal().exitLoop();
        }
    }

    /** Fails on the time limit, a shutdown, or the other side's error; anything else on the side channel now is out of turn. */
    private static void check(Lines ch, SideConfig side, long deadline, long now) {
        if (now - deadline > 0 || side.eal().quitRequested()) {
            throw new IllegalStateException("the run did not finish within its time limit");
        }
        String l = ch.poll();
        if (l != null) {
            if (l.startsWith("ERROR ")) {
                throw new IllegalStateException("the other side failed: " + l.substring(6));
            }
            if (l.startsWith("DONE ") && ch.early == null) {
                ch.early = l; // the other side finished first: its DONE is for later
                return;
            }
            throw new IllegalStateException("side channel: unexpected '" + abbreviate(l) + "' during the stream");
        }
    }

    private static String abbreviate(String line) {
        return line.length() > 120 ? line.substring(0, 120) + "..." : line;
    }
}
