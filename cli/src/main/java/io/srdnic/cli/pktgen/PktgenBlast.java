package io.srdnic.cli.pktgen;

import io.srdnic.cli.Json;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code srdnic pktgen --mode blast}: the raw link's ceiling, like testpmd's txonly → rxonly. One
 * side sends full bursts of B-byte frames for S seconds with no per-byte work and no flow control;
 * the other counts them and their bytes. Frames longer than the default 2 KiB mbuf are carried in
 * mbufs with room for the whole frame (the pool is sized to it), and memif carries them across in
 * as many of its own buffers as they need. ring runs in this process on one thread (sender and
 * receiver take turns: the figure is for one core doing both); memif, af_xdp and af_packet run one
 * JVM per side. The rate is over the measured window (see {@link BlastReceiver}).
 */
final class PktgenBlast {
    /** Ignored at the start of the run while the JIT compiles the loops: a fifth of it, at most a second. */
    static long warmupNanos(int seconds) {
        return Math.min(1_000_000_000L, seconds * 200_000_000L);
    }

    private final PktgenCommand cmd;
    private final PktgenCommand.Link link;
    private final int size;
    private final int seconds;
    private int runId;

    PktgenBlast(PktgenCommand cmd) {
        this.cmd = cmd;
        this.link = cmd.link;
        this.size = cmd.size;
        this.seconds = cmd.seconds;
        this.runId = cmd.runId;
    }

    int call() {
        if (size < PktgenFrame.MIN_LENGTH || size > 16_000) {
            throw new IllegalArgumentException("--size must be " + PktgenFrame.MIN_LENGTH + "..16000 bytes, was " + size);
        }
        if (seconds < 1 || seconds > 600) {
            throw new IllegalArgumentException("--seconds must be 1..600, was " + seconds);
        }
        if (link == PktgenCommand.Link.tap) {
            throw new IllegalArgumentException("--mode blast runs over ring, memif, af_xdp or af_packet, not tap");
        }
        if (cmd.role == PktgenCommand.Role.tx || cmd.role == PktgenCommand.Role.rx) {
            return runSide();
        }
        if (cmd.role != null) {
            throw new IllegalArgumentException("--role " + cmd.role + " is a pingpong role; blast sides are tx and rx");
        }
        runId = ThreadLocalRandom.current().nextInt();
        System.err.printf("pktgen: blast of %d-byte frames for %d s over %s%n", size, seconds, link);
        BlastResult r = link == PktgenCommand.Link.ring ? runRing() : runTwoProcesses();
        System.out.println("blast " + link + " " + size + " B: " + r.text());
        if (cmd.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("mode", "blast");
            m.put("link", link.name());
            m.put("size", size);
            m.put("seconds", seconds);
            m.putAll(r.fields());
            System.out.println(Json.object(m));
        }
        if (!r.measured()) {
            System.err.println("pktgen: FAILED: no frames were received after the warm-up (" + r.received() + " in all): is the link up?");
            return 1;
        }
        return 0;
    }

    private BlastResult runRing() {
        Eal eal = Eal.startOrGet(cmd.ealConfig());
        try (Arena arena = Arena.ofConfined();
             RingPair ring = new RingPair(cmd.frameRoom())) {
            PacketIo a = ring.a;
            PacketIo b = ring.b;
            cmd.checkFits(a);
            BlastSender sender = new BlastSender(a, arena, size, runId, b.macAddress());
            BlastReceiver receiver = new BlastReceiver(b, arena, runId, warmupNanos(seconds));
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            eal.enterLoop();
            try {
                long now;
                while ((now = System.nanoTime()) - end < 0 && !eal.quitRequested()) {
                    sender.doWork();
                    receiver.doWork(now);
                }
                while (receiver.doWork(System.nanoTime()) > 0) {
                    // what is still in the ring counts as received, not as the window's (it ended)
                }
            } finally {
                eal.exitLoop();
            }
            return receiver.result(sender.sent(), sender.refused(), size);
        }
    }

    private BlastResult runTwoProcesses() {
        try (TwoProcessLink ends = TwoProcessLink.open(link, size)) {
            List<String> common = List.of("pktgen", "--mode", "blast", "--size", Integer.toString(size), "--seconds",
                    Integer.toString(seconds),
                "--run-id", Integer.toString(runId), "--memory-mb", Integer.toString(cmd.memoryMb), "--time-limit-s",
                Integer.toString(Math.max(cmd.timeLimitSeconds, seconds + 30)), "--link", link.name());
            try (PeerProcess rx = PeerProcess.start("rx", ends.serverNamespace(),
                    PktgenCommand.with(common, "--role", "rx", "--vdev", ends.serverSpec()))) {
                String mac = rx.await("READY ", 60_000).substring("READY ".length()).trim();
                try (PeerProcess tx = PeerProcess.start("tx", ends.clientNamespace(),
                    PktgenCommand.with(common, "--role", "tx", "--vdev", ends.clientSpec(), "--peer-mac", mac))) {
                    BlastResult sent = BlastResult.parse(tx.await("{", (seconds + 60) * 1000L), size);
                    rx.send("DONE " + sent.sent());
                    BlastResult got = BlastResult.parse(rx.await("{", 30_000), size);
                    return got.withSender(sent.sent(), sent.txRefused());
                }
            }
        }
    }

    /** One side of a two-process blast: the receiver prints READY and its MAC, each side its counts as JSON. */
    private int runSide() {
        return cmd.onSidePort((eal, arena, io, port, parent, deadline) -> cmd.role == PktgenCommand.Role.rx
            ? receive(eal, arena, io, port, parent, deadline)
            : send(eal, arena, io, port, deadline));
    }

    private int receive(Eal eal, Arena arena, PacketIo io, EthPort port, ParentLink parent, long deadline) {
        BlastReceiver receiver = new BlastReceiver(io, arena, runId, warmupNanos(seconds));
        System.out.println("READY " + MacAddress.format(io.macAddress()));
        System.out.flush();
        long lastWork = System.nanoTime();
        eal.enterLoop();
        try {
            int spins = 0;
            while (true) {
                long now = System.nanoTime();
                if (receiver.doWork(now) > 0) {
                    lastWork = now;
                }
                if ((++spins & 0xFF) == 0) {
                    // Done once the sender has finished and the link has been quiet a while, or at the deadline.
                    boolean senderDone = parent.doneSent() >= 0 || parent.closed();
                    if ((senderDone && now - lastWork > 200_000_000L) || now - deadline > 0 || eal.quitRequested()) {
                        break;
                    }
                }
            }
        } finally {
            eal.exitLoop();
        }
        System.err.println("pktgen blast rx: port stats " + port.stats());
        System.out.println(receiver.result(0, 0, size).json());
        return 0;
    }

    private int send(Eal eal, Arena arena, PacketIo io, EthPort port, long deadline) {
        if (cmd.peerMac == null) {
            throw new IllegalArgumentException("--role tx needs --peer-mac");
        }
        PingPongRun.awaitLink(port, eal, deadline);
        BlastSender sender = new BlastSender(io, arena, size, runId, MacAddress.parse(cmd.peerMac));
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        eal.enterLoop();
        try {
            int spins = 0;
            while (true) {
                sender.doWork();
                if ((++spins & 0xFF) == 0 && (System.nanoTime() - end > 0 || eal.quitRequested())) {
                    break;
                }
            }
        } finally {
            eal.exitLoop();
        }
        System.err.println("pktgen blast tx: port stats " + port.stats() + ", bursts without free mbufs " + sender.poolEmpty());
        System.out.println(new BlastResult(sender.sent(), 0, 0, sender.refused(), size, 0, 0, 0).json());
        return 0;
    }
}
