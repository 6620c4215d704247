package io.srdnic.cli.pktgen;

import io.srdnic.cli.net.TapBridge;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPacketIo;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.PortConfig;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic pktgen}: sends N numbered frames of B bytes from one port to another over a real
 * DPDK link, checks every byte, and reports sent, received, corrupted, duplicated, foreign and the
 * receive rate. ring and tap run in this process; memif, af_xdp and af_packet run one JVM per side
 * (af_xdp and af_packet in two network namespaces joined by a veth pair this command creates).
 * {@code --mode pingpong} ({@link PktgenPingPong}) instead bounces one frame between the two sides N times (a reflector swaps
 * its MACs and sends it back) and reports the round-trip times: the raw link's latency, the
 * baseline {@code srdnic perf} compares SRD with. {@code --mode blast} ({@link PktgenBlast}) sends
 * without checking for S seconds: the link's one-way ceiling.
 */
@Command(name = "pktgen", mixinStandardHelpOptions = true,
    description = {"stream: send N frames of B bytes over a DPDK link, verify every payload.",
        "pingpong: bounce one frame back and forth N times, report round-trip times.",
        "blast: send full bursts one way for S seconds, report the received Mpps and Gbit/s (the raw ceiling)."})
public final class PktgenCommand implements Callable<Integer> {
    enum Link { ring, memif, af_xdp, af_packet, tap }

    enum Mode { stream, pingpong, blast }

    enum Role { tx, rx, ping, reflect }

    @Option(names = "--mode", defaultValue = "stream",
        description = "stream: N frames one way, every byte checked; pingpong: one frame bounced back and forth --iters times,"
            + " round-trip times measured; blast: full bursts one way for --seconds, no per-byte work, the link's ceiling"
            + " in Mpps and Gbit/s (default ${DEFAULT-VALUE}).")
    Mode mode;

    @Option(names = "--iters", defaultValue = "10000", description = "pingpong: measured round trips (default ${DEFAULT-VALUE}).")
    long iters;

    @Option(names = "--warmup", description = "pingpong: round trips before measuring (default as many as --iters, 1000..20000).")
    Long warmup;

    @Option(names = "--seconds", defaultValue = "5", description = "blast: how long to send, the first fifth (at most 1 s) unmeasured"
        + " (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--timeout-ms", defaultValue = "100",
            description = "pingpong: a frame not back within this is lost (default ${DEFAULT-VALUE}).")
    int timeoutMs;

    @Option(names = "--link", description = "ring | memif | af_xdp | af_packet | tap (default ${DEFAULT-VALUE}).", defaultValue = "ring")
    Link link;

    @Option(names = "--count", defaultValue = "100000", description = "Frames to send (default ${DEFAULT-VALUE}).")
    long count;

    @Option(names = "--size", defaultValue = "64",
            description = "Frame length in bytes, Ethernet header included, CRC not (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--window", description = "Frames in flight before the sender waits for the receiver's credit"
        + " (default 512 on ring and memif, 128 on af_xdp and tap, 32 on af_packet: the kernel drops what its socket ring cannot hold).")
    Integer window;

    @Option(names = "--time-limit-s", defaultValue = "60", description = "Give up after this many seconds (default ${DEFAULT-VALUE}).")
    int timeLimitSeconds;

    @Option(names = "--memory-mb", defaultValue = "512", description = "EAL memory per process in MiB (default ${DEFAULT-VALUE}).")
    int memoryMb;

    @Option(names = "--json", description = "Print the result as one JSON object on the last line.")
    boolean json;

    @Option(names = "--role", hidden = true, description = "Internal: run one side (tx or rx) of a two-process run.")
    Role role;

    @Option(names = "--vdev", hidden = true, description = "Internal: the device this side uses.")
    String vdev;

    @Option(names = "--peer-mac", hidden = true, description = "Internal: the receiver's MAC.")
    String peerMac;

    @Option(names = "--run-id", hidden = true, description = "Internal: tells this run's frames from foreign ones.")
    int runId;

    @Override
    public Integer call() {
        if (mode == Mode.pingpong) {
            return new PktgenPingPong(this).call();
        }
        if (mode == Mode.blast) {
            return new PktgenBlast(this).call();
        }
        if (count < 1 || count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--count must be 1.." + Integer.MAX_VALUE + ", was " + count);
        }
        if (size < PktgenFrame.MIN_LENGTH || size > 16_000) {
            throw new IllegalArgumentException("--size must be " + PktgenFrame.MIN_LENGTH + "..16000 bytes, was " + size);
        }
        if (window == null) {
            window = switch (link) {
                case ring, memif -> 512;
                case af_xdp, tap -> 128;
                case af_packet -> 32;
            };
        }
        if (window < 32) {
            throw new IllegalArgumentException("--window must be at least one burst (32), was " + window);
        }
        if (role != null) {
            return runSide();
        }
        runId = ThreadLocalRandom.current().nextInt();
        System.err.printf("pktgen: %d frames of %d bytes over %s%n", count, size, link);
        PktgenResult result = switch (link) {
            case ring -> runRing();
            case tap -> runTap();
            case memif, af_xdp, af_packet -> runTwoProcesses();
        };
        System.out.println(result.text());
        if (json) {
            System.out.println(result.json());
        }
        if (!result.passed(count)) {
            System.err.println("pktgen: FAILED: " + (count - result.sent()) + " never sent (time limit), " + result.lost()
                    + " lost (of which "
                + result.linkDropped() + " counted as dropped by the link), " + result.corrupted() + " corrupted, " + result.duplicated()
                + " duplicated");
            return 1;
        }
        return 0;
    }

    int frameRoom() {
        return Math.max(2048, size);
    }

    EalConfig ealConfig() {
        return new EalConfig().memoryMb(memoryMb);
    }

    private PktgenResult runRing() {
        // The process's EAL (started if none is, cleaned up at exit): a run may follow other runs in one JVM.
        Eal eal = Eal.startOrGet(ealConfig());
        try (Arena arena = Arena.ofConfined();
             RingPair ring = new RingPair(frameRoom())) {
            return runInProcess(eal, arena, ring.a, ring.b, ring.b.macAddress(), new LinkDrops(ring.link().a(), null),
                new LinkDrops(ring.link().b(), null));
        }
    }

    private PktgenResult runTap() {
        String tag = Long.toString(ProcessHandle.current().pid() % 100_000);
        String tapA = "srdtap" + tag + "a";
        String tapB = "srdtap" + tag + "b";
        Eal eal = Eal.startOrGet(ealConfig());
        try (Arena arena = Arena.ofConfined();
             MbufPool pool = MbufPool.create("pktgen" + tag, 8191, frameRoom());
             EthPort a = EthPort.attach("net_tap0,iface=" + tapA);
             EthPort b = EthPort.attach("net_tap1,iface=" + tapB)) {
            TapBridge.disableIpv6(tapA);
            TapBridge.disableIpv6(tapB);
            PortConfig config = PortConfig.DEFAULT.withMtu(Math.max(1500, size - 14));
            a.configure(config, pool).start();
            b.configure(config, pool).start();
            try (TapBridge bridge = TapBridge.create("srdbr" + tag, List.of(tapA, tapB))) {
                // A bridge delivers frames for its ports' own MACs to the host, not across: use broadcast.
                return runInProcess(eal, arena, new EthPacketIo(a, 0, pool), new EthPacketIo(b, 0, pool), MacAddress.BROADCAST,
                    new LinkDrops(a, tapA), new LinkDrops(b, tapB));
            }
        }
    }

    private PktgenResult runInProcess(Eal eal, Arena arena, PacketIo tx, PacketIo rx, long dst, LinkDrops txDrops, LinkDrops rxDrops) {
        checkFits(tx);
        checkFits(rx);
        PktgenSender sender = new PktgenSender(tx, arena, count, size, runId, dst, window);
        PktgenReceiver receiver = new PktgenReceiver(rx, arena, count, size, runId,
            dst == MacAddress.BROADCAST ? MacAddress.BROADCAST : PktgenReceiver.LEARN_PEER);
        long deadline = System.nanoTime() + timeLimitSeconds * 1_000_000_000L;
        long lastWork = System.nanoTime();
        eal.enterLoop();
        try {
            while (!eal.quitRequested()) {
                long now = System.nanoTime();
                int work = sender.doWork(now) + receiver.doWork(now);
                if (work > 0) {
                    lastWork = now;
                }
                boolean drained = sender.done() && (receiver.received() >= count || now - lastWork > 1_000_000_000L);
                if (drained || now > deadline) {
                    break;
                }
            }
        } finally {
            eal.exitLoop();
        }
        PktgenResult r = receiver.result(sender.sent(), txDrops.sent(tx.txDropped()) + rxDrops.received());
        return new PktgenResult(r.sent(), r.received(), r.corrupted(), r.duplicated(), r.foreign() + sender.foreign(), r.linkDropped(),
            r.mpps());
    }

    void checkFits(PacketIo io) {
        if (size > io.maxFrameLength()) {
            throw new IllegalArgumentException("--size " + size + " is larger than the largest frame this link carries ("
                    + io.maxFrameLength() + ")");
        }
    }

    private PktgenResult runTwoProcesses() {
        try (TwoProcessLink ends = TwoProcessLink.open(link, size)) {
            List<String> common = List.of("pktgen", "--count", Long.toString(count), "--size", Integer.toString(size),
                "--window", Integer.toString(window), "--run-id", Integer.toString(runId), "--memory-mb", Integer.toString(memoryMb),
                "--time-limit-s", Integer.toString(timeLimitSeconds));
            try (PeerProcess rx = PeerProcess.start("rx", ends.serverNamespace(),
                    with(common, "--role", "rx", "--vdev", ends.serverSpec()))) {
                String mac = rx.await("READY ", 60_000).substring("READY ".length()).trim();
                try (PeerProcess tx = PeerProcess.start("tx", ends.clientNamespace(),
                    with(common, "--role", "tx", "--vdev", ends.clientSpec(), "--peer-mac", mac))) {
                    PktgenResult sent = PktgenResult.parse(tx.await("{", (timeLimitSeconds + 30) * 1000L));
                    rx.send("DONE " + sent.sent());
                    PktgenResult got = PktgenResult.parse(rx.await("{", 30_000));
                    return new PktgenResult(sent.sent(), got.received(), got.corrupted(), got.duplicated(),
                        got.foreign() + sent.foreign(), got.linkDropped() + sent.linkDropped(), got.mpps());
                }
            }
        }
    }

    static List<String> with(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }

    /** One side of a two-process run: prints READY (rx) and a JSON result line on stdout. */
    private int runSide() {
        if (role == Role.ping || role == Role.reflect) {
            throw new IllegalArgumentException("--role " + role + " is a pingpong role: add --mode pingpong");
        }
        return onSidePort((eal, arena, io, port, parent, deadline) -> role == Role.rx
            ? runReceiverSide(eal, arena, io, port, parent, deadline)
            : runSenderSide(eal, arena, io, port, deadline));
    }

    /** What one side of a two-process run does once EAL, its pool and its port are up. */
    interface SideBody {
        int run(Eal eal, Arena arena, PacketIo io, EthPort port, ParentLink parent, long deadline);
    }

    /**
     * Starts EAL, makes the pool, attaches and starts the port of --vdev, and runs {@code body} on it;
     * then keeps the port open until the parent closes stdin, which it does once the other side has
     * stopped polling (see {@link ParentLink}).
     */
    int onSidePort(SideBody body) {
        if (vdev == null) {
            throw new IllegalArgumentException("--role needs --vdev");
        }
        try (Eal eal = Eal.start(ealConfig());
             Arena arena = Arena.ofConfined();
             MbufPool pool = MbufPool.create("pktgen", 8191, frameRoom());
             EthPort port = EthPort.attach(vdev)) {
            port.configure(PortConfig.DEFAULT.withMtu(size > 1514 ? size - 14 : 0), pool).start();
            PacketIo io = new EthPacketIo(port, 0, pool);
            checkFits(io);
            ParentLink parent = ParentLink.start();
            int status = body.run(eal, arena, io, port, parent, System.nanoTime() + timeLimitSeconds * 1_000_000_000L);
            if (!parent.awaitClosed(60_000)) {
                System.err.println("pktgen " + role + ": the parent kept stdin open 60 s after the result; closing the port anyway");
            }
            return status;
        }
    }

    private int runReceiverSide(Eal eal, Arena arena, PacketIo io, EthPort port, ParentLink stdin, long deadline) {
        PktgenReceiver receiver = new PktgenReceiver(io, arena, count, size, runId, PktgenReceiver.LEARN_PEER);
        LinkDrops drops = new LinkDrops(port, LinkDrops.interfaceOf(vdev));
        System.out.println("READY " + MacAddress.format(io.macAddress()));
        System.out.flush();
        long lastWork = System.nanoTime();
        eal.enterLoop();
        try {
            while (!eal.quitRequested() && !stdin.closed()) {
                long now = System.nanoTime();
                if (receiver.doWork(now) > 0) {
                    lastWork = now;
                }
                long sent = stdin.doneSent();
                if ((sent >= 0 && (receiver.received() >= sent || now - lastWork > 1_000_000_000L)) || now > deadline) {
                    break;
                }
            }
        } finally {
            eal.exitLoop();
        }
        System.err.println("pktgen rx: port stats " + port.stats());
        PktgenResult r = receiver.result(Math.max(0, stdin.doneSent()), drops.received());
        System.out.println(r.json());
        return 0;
    }

    private int runSenderSide(Eal eal, Arena arena, PacketIo io, EthPort port, long deadline) {
        if (peerMac == null) {
            throw new IllegalArgumentException("--role tx needs --peer-mac");
        }
        while (!port.link().up()) {
            if (System.nanoTime() > deadline || eal.quitRequested()) {
                throw new IllegalStateException("link of " + port.name() + " never came up: did the receiver start?");
            }
            Thread.onSpinWait();
        }
        PktgenSender sender = new PktgenSender(io, arena, count, size, runId, MacAddress.parse(peerMac), window);
        LinkDrops drops = new LinkDrops(port, LinkDrops.interfaceOf(vdev));
        long doneAt = 0;
        eal.enterLoop();
        try {
            while (!eal.quitRequested()) {
                long now = System.nanoTime();
                sender.doWork(now);
                if (sender.done() && doneAt == 0) {
                    doneAt = now;
                }
                // Linger briefly after the last frame so it leaves before the port closes.
                if ((doneAt != 0 && now - doneAt > 200_000_000L) || now > deadline) {
                    break;
                }
            }
        } finally {
            eal.exitLoop();
        }
        System.err.println("pktgen tx: port stats " + port.stats() + ", credit stalls " + sender.stalls());
        System.out.println(new PktgenResult(sender.sent(), 0, 0, 0, sender.foreign(), drops.sent(io.txDropped()), 0).json());
        return 0;
    }
}
