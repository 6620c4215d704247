package io.srdnic.cli.perf;

import io.srdnic.cli.net.MemifSpec;
import io.srdnic.cli.pktgen.PktgenPingPong;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.verbs.ThreadingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code srdnic perf}: perftest's ib_send_lat and ib_send_bw for SRD, UD and RC queue pairs over
 * the verbs API, and with {@code --op write|read} ib_write_lat, ib_write_bw, ib_read_lat and
 * ib_read_bw for SRD and RC. Without {@code --server}/{@code --client} it starts both sides itself: ring in this
 * JVM (one thread per side), sim in this thread in virtual time, memif and af_xdp in two child
 * JVMs (af_xdp in two network namespaces joined by a veth pair). With them, each side is started
 * by hand and they meet over a TCP side channel that carries MAC, IP, QPNs and Q_Key; RC QPs are
 * connected by the connection manager over the link itself ({@link PerfCmConnector}), which also
 * carries each side's RDMA region in its private data.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Latency (ib_send_lat) and bandwidth (ib_send_bw) of SRD, UD and RC queue pairs;",
        "  --op write and read: RDMA WRITE (ib_write_*) and READ (ib_read_*) on SRD and RC.",
        "--transport rc: connected QPs; the connection manager swaps QPNs and first",
        "  PSNs over the link (port 18515 of its own) and takes the QPs to RTR and RTS",
        "  (path MTU: the largest of 256..4096 within the link's); for --op write|read",
        "  the region's address and rkey travel in its private data. A SEND is cut",
        "  into packets of the path MTU, up",
        "  to 1 GiB; it carries the pattern and lands in one region per side, checked",
        "  at the end like write's (lat: the server sends back what arrived).",
        "lat: the client sends, the server sends back; round-trip times (not half",
        "  round trips) and round trips/s. On a DPDK link a raw frame ping-pong with",
        "  the same frame length (size + 90 B of headers) runs first on the same ports",
        "  (not for an RDMA message longer than one packet).",
        "bw: the client streams, --window messages per QP in flight; messages/s and",
        "  Gbit/s of payload, where they arrive.",
        "--op write: the server registers a region (REMOTE_WRITE) and tells the client",
        "  its address and rkey (on the side channel; rc: in the CM's accept).",
        "  lat: the client RDMA WRITEs WITH_IMM into it, the server WRITEs WITH_IMM what arrived into the client's",
        "  region; the receive completion of the immediate marks arrival (SRD lands a",
        "  WRITE's packets in any order: its last byte says nothing). bw: plain RDMA",
        "  WRITEs, counted and timed by their completions at the client (an SRD WRITE",
        "  completes once the server's ACK covers all of it).",
        "--op read: the server's region (REMOTE_READ) holds a known pattern; the",
        "  client READs it, one at a time (lat) or --window per QP in flight (bw),",
        "  timed by the READ completions.",
        "write and read carry one pattern in every message; at the end each side",
        "  checks every byte of the region it lands in, and a wrong one fails the run.",
        "--json prints one object last; p50_us, p99_us, p999_us, msgs_per_sec, gbps and",
        "  raw_p50_us (raw_p99_us, raw_p999_us) are always there, null when the mode does",
        "  not measure them.",
        "On sim all times are virtual: the simulated links and transport, not this CPU."})
public final class PerfCommand implements Callable<Integer> {
    static final int SERVER_IP = 0x0A00_0001;
    static final int CLIENT_IP = 0x0A00_0002;
    static final int DEFAULT_OOB_PORT = 18515;

    enum Link { ring, memif, af_xdp, sim, tap }

    enum Role { server, client }

    @Option(names = "--mode", defaultValue = "lat", description = "lat | bw (default ${DEFAULT-VALUE}).")
    PerfParams.Mode mode;

    @Option(names = "--op", defaultValue = "send",
        description = "send | write | read: SEND_WITH_IMM, RDMA WRITE or RDMA READ; write and read need srd or rc (default "
                + "${DEFAULT-VALUE}).")
    PerfParams.Op op;

    @Option(names = "--transport", defaultValue = "srd", description = "srd | ud | rc | src (default ${DEFAULT-VALUE}).")
    PerfParams.Transport transport;

    @Option(names = "--size", defaultValue = "64", description = "Message size in bytes: send on srd and ud 1..the SRD MTU (4096; less on"
        + " af_xdp); write and read, and every op on rc, 1..the transport's largest transfer (1 GiB) (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--iters", defaultValue = "10000",
            description = "Measured round trips (lat) or messages (bw) (default ${DEFAULT-VALUE}).")
    long iters;

    @Option(names = "--link", defaultValue = "ring", description = "ring | memif | af_xdp | sim | tap (default ${DEFAULT-VALUE});"
        + " tap: two net_tap ports and a bridge in this process, the link whose driver offloads the UDP checksum; needs root.")
    Link link;

    @Option(names = "--qps", defaultValue = "1", description = "QP pairs, used round robin (default ${DEFAULT-VALUE}).")
    int qps;

    @Option(names = "--window", defaultValue = "128",
            description = "bw: messages in flight per QP, the send queue depth (default ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--warmup", description = "Round trips or messages before measuring, so the loops are compiled when timed"
        + " (default lat: as many as --iters, 1000..20000; bw: iters/10, 1000..50000).")
    Long warmup;

    @Option(names = "--warmup-ms", description = "lat: warm up for at least this long too, the raw ping-pong and the run alike, so the"
        + " JIT has compiled the path before it is timed (default 3000 on DPDK links, 0 on sim; 0: --warmup round trips only).")
    Long warmupMs;

    @Option(names = "--timeout-ms", defaultValue = "100",
        description = "lat with UD: a round trip not back within this counts as timed out and the next begins (UD loses messages;"
            + " SRD does not, and is waited for) (default ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
        description = "Any SRD transport setting (docs/configuration.md), e.g. --set delayed-ack=false; both sides take it"
            + " (with --server/--client each side takes its own).")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--threading", defaultValue = "invoker",
        description = "invoker: the test's own polls run the dataplane; dedicated: a dataplane thread per context (default "
                + "${DEFAULT-VALUE}).")
    String threading;

    @Option(names = "--rc-ack-timeout", paramLabel = "CODE", description = "rc and src: the QPs' local ACK timeout, 4.096 us x 2^CODE,"
        + " 1..31, set through the CM on both sides' QPs (ib_send_lat's -u; default: the CM's 14, 67 ms); give it to the client (a"
        + " --server takes the client's). With 7 retries a QP gives up after about 8 timeouts: lengthen it on a host whose threads"
        + " can be descheduled for longer.")
    Integer ackTimeout;

    @Option(names = "--json", description = "Print the result as one JSON object on the last line.")
    boolean json;

    @Option(names = "--stats", description = "Print the transport's counters and per-context lines after the run.")
    boolean stats;

    @Option(names = "--no-raw", description = "lat: skip the raw ping-pong baseline.")
    boolean noRaw;

    @Option(names = "--server", description = "Be the server side and wait for a client on the TCP side channel.")
    boolean server;

    @Option(names = "--oob-port", defaultValue = "18515",
            description = "--server: TCP port of the side channel (default ${DEFAULT-VALUE}).")
    int oobPort;

    @Option(names = "--client", paramLabel = "HOST:PORT", description = "Be the client side of the server at HOST:PORT (its side channel).")
    String client;

    @Option(names = "--vdev",
            description = "--server/--client: this side's DPDK device spec (default: memif over --memif-socket, af_xdp on --iface).")
    String vdev;

    @Option(names = "--iface", description = "--server/--client with af_xdp: the interface this side uses.")
    String iface;

    @Option(names = "--memif-socket", defaultValue = "/run/srdnic-perf.sock",
            description = "--server/--client with memif: the socket (default ${DEFAULT-VALUE}).")
    String memifSocket;

    @Option(names = "--ip", description = "--server/--client: this side's IPv4 address (default 10.0.0.1 server, 10.0.0.2 client).")
    String ip;

    @Option(names = "--seed", defaultValue = "1", description = "sim: seed of the simulated network (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--loss", defaultValue = "0",
            description = "sim: probability that a packet is lost on the simulated fabric, each way (default ${DEFAULT-VALUE}).")
    double loss;

    @Option(names = "--memory-mb", defaultValue = "512", description = "EAL memory per process in MiB (default ${DEFAULT-VALUE}).")
    int memoryMb;

    @Option(names = "--time-limit-s", defaultValue = "300", description = "Give up after this many seconds (default ${DEFAULT-VALUE}).")
    int timeLimitSeconds;

    @Option(names = "--cpu", description = "Pin the polling thread (raw ping-pong and run alike) to CPU N; -1: no pinning. When perf"
        + " starts both sides (ring, memif, af_xdp), the client goes on N and the server on the next CPU, so they never share a"
        + " core; default there 0 when the machine has two or more CPUs. --server and --client sides are pinned only when given.")
    Integer cpu;

    @Option(names = "--attach", paramLabel = "DIR", description = "Run attached to srdnic dataplanes (docs/dataplane.md) rather than with"
        + " an embedded one; any --transport. --link memif: perf starts two dataplanes joined by memif, in DIR/server and"
        + " DIR/client, and attaches each side to one; --server/--client: this side attaches to the dataplane in DIR.")
    Path attach;

    @Option(names = "--dataplane-busy-spin", description = "--attach with --link memif: the dataplanes perf starts never park when idle.")
    boolean dataplaneBusySpin;

    @Option(names = "--role", hidden = true, description = "Internal: one side of a two-process run, side channel on stdin/stdout.")
    Role role;

    @Option(names = "--run-id", hidden = true, description = "Internal: the run's id.")
    Integer runId;

    @Option(names = "--corrupt-payload", hidden = true,
        description = "For tests, write and read: flip one byte of the pattern where it is made, so the payload check must fail.")
    boolean corruptPayload;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        ThreadingMode mode = threadingMode();
        PerfParams p = params();
        if (server && client != null) {
            throw new IllegalArgumentException("--server and --client exclude each other");
        }
        if (role != null) {
            return runChild(p, mode);
        }
        if (server || client != null) {
            return runExplicit(p, mode);
        }
        return switch (link) {
            case sim -> {
                if (mode == ThreadingMode.DEDICATED) {
                    System.err.println("perf: sim is single-threaded in virtual time: --threading dedicated is ignored");
                }
                yield report(SimPerf.run(p, seed, loss, settings));
            }
            case ring -> report(RingPerf.run(p, mode, memoryMb, settings, pairCpu(1), pairCpu(0)));
            case tap -> report(TapPerf.run(p, mode, memoryMb, settings, pairCpu(1), pairCpu(0)));
            // The largest payload in one frame (af_xdp sizes its veth pair's MTU by it): an SRD or UD SEND's. An RDMA message or an
            // RC SEND is cut into packets of at most af_xdp's SRD MTU: a larger veth MTU is one its 2 KiB umem frames cannot take.
            case memif, af_xdp -> attach != null
                ? TwoProcessPerf.runAttached(attach, childArgs(p, false), settings, pairCpu(1), pairCpu(0), dataplaneBusySpin,
                    timeLimitSeconds * 1000L)
                : TwoProcessPerf.run(link, op.rdma() || transport.connected ? Math.min(size, PerfPort.AF_XDP_SRD_MTU) : size,
                childArgs(p, true), pairCpu(1), pairCpu(0), timeLimitSeconds * 1000L);
        };
    }

    /**
     * What runs attached: every transport over memif (RC and SRC connected by the dataplanes'
     * connection managers). The transport settings are the dataplane's: perf gives --set to the
     * two it starts, and refuses it for a side attached to a dataplane it did not start.
     */
    private void checkAttachable() {
        boolean startsDataplanes = role == null && !server && client == null;
        if (startsDataplanes && link != Link.memif) {
            throw new ParameterException(spec.commandLine(), "--attach starts its two dataplanes joined by memif: use --link memif");
        }
        if (!settings.isEmpty() && !startsDataplanes) {
            throw new ParameterException(spec.commandLine(), "--set configures the transport, which runs in the dataplane when attached:"
                + " give it to srdnic dataplane (--set, or set.KEY in its --config)");
        }
    }

    /** The CPU of one side of a run perf starts both sides of: the client's ({@code next} 0) or the one after it (1); -1: none. */
    private int pairCpu(int next) {
        int cpus = Runtime.getRuntime().availableProcessors();
        int first = cpu != null ? cpu : cpus >= 2 ? 0 : -1;
        return first < 0 ? -1 : (first + next) % cpus;
    }

    private ThreadingMode threadingMode() {
        try {
            return PerfParams.threading(threading);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--threading must be invoker or dedicated, was " + threading);
        }
    }

    /** The run's parameters, checked; what --op makes wrong is a usage error. */
    PerfParams params() {
        if (attach != null) {
            checkAttachable();
        }
        if (op.rdma() && !transport.rdma) {
            throw new ParameterException(spec.commandLine(), "--op " + op + " needs RDMA, which " + transport
                + " queue pairs do not have: use --transport srd or rc");
        }
        if (op.rdma() && (size < 1 || size > PerfParams.MAX_RDMA_SIZE)) {
            throw new ParameterException(spec.commandLine(), "--size must be 1.." + PerfParams.MAX_RDMA_SIZE + " bytes with --op " + op
                + " (the transport's largest RDMA transfer), was " + size);
        }
        if (!op.rdma() && transport.connected && (size < 1 || size > PerfParams.MAX_RDMA_SIZE)) {
            throw new ParameterException(spec.commandLine(), "--size must be 1.." + PerfParams.MAX_RDMA_SIZE + " bytes with --transport "
                + transport + " --op send (RC cuts a SEND into packets of the path MTU, up to the transport's largest transfer), was "
                        + size);
        }
        if (!op.rdma() && !transport.connected && (size < 1 || size > PerfParams.MAX_SEND_SIZE)) {
            throw new IllegalArgumentException("--size must be 1.." + PerfParams.MAX_SEND_SIZE + " bytes (one message is one packet), was "
                + size + (size > PerfParams.MAX_SEND_SIZE && transport.rdma ? "; --op write and read go up to 1 GiB, and so does"
                + " --transport rc" : ""));
        }
        // A --server takes the transport from its client's PARAMS: its own --transport says nothing yet.
        if (!server && !transport.connected && settings.containsKey("rc-paths")) {
            throw new ParameterException(spec.commandLine(), "--set rc-paths is the path count of RC queue pairs: it needs --transport rc,"
                + " was --transport " + transport + " (its paths are --set paths=N)");
        }
        if (ackTimeout != null && (ackTimeout < 1 || ackTimeout > 31)) {
            throw new ParameterException(spec.commandLine(), "--rc-ack-timeout is a code 1..31 (4.096 us x 2^code), was " + ackTimeout);
        }
        if (ackTimeout != null && !server && !transport.connected) {
            throw new ParameterException(spec.commandLine(), "--rc-ack-timeout is the local ACK timeout of connected QPs: it needs"
                + " --transport rc or src, was --transport " + transport);
        }
        if (iters < 1 || iters > 1_000_000_000L) {
            throw new IllegalArgumentException("--iters must be 1..1000000000, was " + iters);
        }
        if (qps < 1 || qps > 64) {
            throw new IllegalArgumentException("--qps must be 1..64, was " + qps);
        }
        if (window < 1 || window > 8192) {
            throw new IllegalArgumentException("--window must be 1..8192 (the SQ depth), was " + window);
        }
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("--timeout-ms must be at least 1, was " + timeoutMs);
        }
        if (loss < 0 || loss >= 1) {
            throw new IllegalArgumentException("--loss must be in [0, 1), was " + loss);
        }
        if (loss > 0 && link != Link.sim) {
            throw new IllegalArgumentException("--loss is for --link sim: a real link loses what it loses");
        }
        if (timeLimitSeconds < 1) {
            throw new IllegalArgumentException("--time-limit-s must be at least 1, was " + timeLimitSeconds);
        }
        long w = warmup != null ? warmup
            : mode == PerfParams.Mode.lat ? PktgenPingPong.defaultWarmup(iters) : Math.max(1000, Math.min(50_000, iters / 10));
        if (w < 0 || w > 1_000_000_000L) {
            throw new IllegalArgumentException("--warmup must be 0..1000000000, was " + w);
        }
        long warmupFloor = warmupMs != null ? warmupMs : mode == PerfParams.Mode.lat && link != Link.sim ? 3000 : 0;
        if (warmupFloor < 0 || warmupFloor > 600_000) {
            throw new IllegalArgumentException("--warmup-ms must be 0..600000, was " + warmupFloor);
        }
        if (cpu != null && (cpu < -1 || cpu >= Runtime.getRuntime().availableProcessors())) {
            throw new IllegalArgumentException("--cpu must be -1.." + (Runtime.getRuntime().availableProcessors() - 1)
                    + " here, was " + cpu);
        }
        settings.forEach(new TransportConfig()::set); // an unknown key or a bad value fails here, before any side starts

        boolean raw = mode == PerfParams.Mode.lat && link != Link.sim && !noRaw;
        int id = runId != null ? runId : ThreadLocalRandom.current().nextInt();
        return new PerfParams(mode, op, transport, size, iters, w, warmupFloor * 1_000_000L, qps, window, timeoutMs * 1_000_000L, raw,
            stats, id, timeLimitSeconds * 1_000_000_000L, corruptPayload, ackTimeout == null ? 0 : ackTimeout);
    }

    private int report(PerfResult r) {
        r.text().forEach(System.out::println);
        if (json) {
            System.out.println(r.json());
        }
        String failure = r.failure();
        if (failure != null) {
            System.err.println("perf: FAILED: " + failure);
            return 1;
        }
        return 0;
    }

    // ---------------------------------------------------------------- two processes

    /**
     * The arguments of both children: the run's parameters, fixed (warm-up and run id included), and
     * this side's link; the transport settings too when the children run the transports (not attached).
     */
    private List<String> childArgs(PerfParams p, boolean withSettings) {
        List<String> a = new ArrayList<>(List.of("perf", "--mode", p.mode().name(), "--op", p.op().name(), "--transport",
                p.transport().name(),
            "--size", Integer.toString(p.size()), "--iters", Long.toString(p.iters()), "--warmup", Long.toString(p.warmup()),
            "--warmup-ms", Long.toString(p.warmupNanos() / 1_000_000),
            "--qps", Integer.toString(p.qps()), "--window", Integer.toString(p.window()), "--timeout-ms", Long.toString(timeoutMs),
            "--threading", threading, "--link", link.name(), "--memory-mb", Integer.toString(memoryMb),
            "--time-limit-s", Integer.toString(timeLimitSeconds), "--run-id", Integer.toString(p.runId())));
        if (stats) {
            a.add("--stats");
        }
        if (json) {
            a.add("--json");
        }
        if (noRaw) {
            a.add("--no-raw");
        }
        if (corruptPayload) {
            a.add("--corrupt-payload");
        }
        if (p.ackTimeout() > 0) {
            a.addAll(List.of("--rc-ack-timeout", Integer.toString(p.ackTimeout())));
        }
        if (withSettings) {
            settings.forEach((k, v) -> a.addAll(List.of("--set", k + "=" + v)));
        }
        return a;
    }

    static String afXdpSpec(String iface) {
        return "net_af_xdp0,start_queue=0,queue_count=1,iface=" + iface;
    }

    private int runChild(PerfParams p, ThreadingMode mode) {
        if (vdev == null && attach == null) {
            throw new IllegalArgumentException("--role needs --vdev or --attach");
        }
        return runSide(role, p, mode, vdev, new StdioChannel(System.out), SERVER_IP, CLIENT_IP, false);
    }

    private int runExplicit(PerfParams p, ThreadingMode mode) {
        if (link == Link.ring || link == Link.sim || link == Link.tap) {
            throw new IllegalArgumentException("--server/--client need a link between two processes (memif or af_xdp);"
                + " ring, tap and sim run both sides in one process: leave --server/--client out");
        }
        if (oobPort < 1 || oobPort > 65535) {
            throw new IllegalArgumentException("--oob-port must be 1..65535, was " + oobPort);
        }
        Role r = server ? Role.server : Role.client;
        String spec = vdev;
        if (spec == null && attach == null) {
            if (link == Link.memif) {
                spec = MemifSpec.of(r.name(), memifSocket);
            } else if (iface == null) {
                throw new IllegalArgumentException("--link af_xdp with --server/--client needs --iface (or --vdev)");
            } else {
                spec = afXdpSpec(iface);
            }
        }
        int defaultIp = r == Role.server ? SERVER_IP : CLIENT_IP;
        int own = ip != null ? PeerInfo.parseIpv4(ip) : defaultIp;
        long limitMs = timeLimitSeconds * 1000L;
        Channel ch;
        if (r == Role.server) {
            ch = TcpChannel.accept(oobPort, limitMs);
        } else {
            int colon = client.lastIndexOf(':');
            if (colon <= 0 || colon == client.length() - 1) {
                throw new IllegalArgumentException("--client takes HOST:PORT, was " + client);
            }
            int port;
            try {
                port = Integer.parseInt(client.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--client takes HOST:PORT, was " + client);
            }
            ch = TcpChannel.connect(client.substring(0, colon), port, limitMs);
        }
        try (ch) {
            return runSide(r, p, mode, spec, ch, own, own, true);
        }
    }

    /** One side in this process: EAL, its port (opened when the session says), the session; attached, the session only. */
    private int runSide(Role r, PerfParams p, ThreadingMode mode, String spec, Channel ch, int serverIp, int clientIp, boolean standalone) {
        int pin = cpu != null ? cpu : -1;
        if (attach != null) {
            return runSession(r, p, ch, SideConfig.attached(attach, mode, link.name(), standalone, settings, pin));
        }
        try (Eal eal = Eal.start(new EalConfig().memoryMb(memoryMb))) {
            int ownIp = r == Role.server ? serverIp : clientIp;
            return runSession(r, p, ch, new SideConfig(eal, () -> PerfPort.attach(spec, "perf" + r), ownIp, mode, link.name(), standalone,
                settings, pin));
        }
    }

    private int runSession(Role r, PerfParams p, Channel ch, SideConfig side) {
        if (r == Role.server) {
            try {
                PerfSession.server(ch, side, timeLimitSeconds * 1000L);
            } catch (RuntimeException e) {
                ch.send("ERROR " + e.getMessage());
                throw e;
            }
            return 0;
        }
        try {
            return report(PerfSession.client(ch, p, side));
        } catch (RuntimeException e) {
            ch.send("ERROR " + e.getMessage());
            throw e;
        }
    }
}
