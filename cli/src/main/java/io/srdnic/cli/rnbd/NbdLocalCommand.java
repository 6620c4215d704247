package io.srdnic.cli.rnbd;

import io.srdnic.cli.nbd.NbdServerOptions;
import io.srdnic.cli.pktgen.PeerProcess;
import io.srdnic.nbd.Export;
import io.srdnic.nbd.Exports;
import io.srdnic.nbd.NbdServer;
import io.srdnic.rnbd.client.RnbdDevice;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rtrs.server.ServerConfig;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code srdnic nbd-local}: the whole stack on one machine. An RNBD server in a second process
 * (a memory device, or a backing file) and, in this one, the gateway: an RTRS session of one path
 * per memif link to it and an NBD server in front, on a unix socket. Prints {@code ready} once NBD
 * clients can connect; serves until SIGTERM, then stops the NBD server, closes the device, the
 * session and the links, and lets the server process go. A control socket next to the NBD socket
 * ({@code PATH.ctl}) serves {@code srdnic rtrs path} and {@code srdnic rtrs stats}.
 *
 * <p>Supervision: when the server process dies (killed, crashed, out of memory) the device is gone
 * for good, so nbd-local says so, stops everything and exits with status {@link #SERVER_DIED}
 * rather than answering EIO for ever; a supervisor (systemd's Restart=, a shell loop) restarts
 * it. Sockets a SIGKILL left behind (nobody listening) are removed at start; a live one is refused.
 */
@Command(name = "nbd-local", mixinStandardHelpOptions = true,
    description = "NBD on a unix socket, backed by an RNBD server in a second process over RTRS on memif links; prints 'ready'.")
public final class NbdLocalCommand implements Callable<Integer> {
    static final String DEVICE = "disk";
    static final String SERVER_IP = "10.0.0.1";
    static final String GATEWAY_IP = "10.0.0.2";
    /** The exit status when the RNBD server process died under nbd-local. */
    static final int SERVER_DIED = 3;
    private static final String MEMIF_PREFIX = "srdnic-nbd-local-";

    @Option(names = "--socket", required = true, paramLabel = "PATH",
            description = "The NBD unix socket (removed on exit; a stale one nobody listens on is"
        + " replaced, a live one refused).")
    Path socket;

    @Option(names = "--size", paramLabel = "BYTES",
            description = "The memory device's size (e.g. 1G): a multiple of 512. With --backing: the size to make a missing file;"
        + " an existing file is served at its own size and a different --size is refused.")
    String size;

    @Option(names = "--paths", defaultValue = "2", description = "RTRS paths, one memif link each (default ${DEFAULT-VALUE}).")
    int paths;

    @Option(names = "--transport", defaultValue = "rc", description = "rc (the only one: RTRS paths are CM connections, which are RC).")
    String transport;

    @Option(names = "--backing", paramLabel = "FILE",
            description = "Serve this file, and nothing else of its directory (made sparse, of --size, if missing), instead of memory.")
    Path backing;

    @Option(names = "--io-connections", defaultValue = "1", paramLabel = "N",
            description = "RTRS IO connections per path (the seed's one per CPU; default ${DEFAULT-VALUE}: one poll thread drives"
        + " them all, and more measured no faster: docs/performance.md).")
    int ioConnections;

    @Mixin
    NbdServerOptions serverOptions = new NbdServerOptions();

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (!"rc".equals(transport)) {
            throw new IllegalArgumentException("--transport " + transport + ": RTRS over SRD is not possible here: RTRS makes its paths"
                + " through the connection manager, which makes RC connections; use rc");
        }
        if (paths < 1 || paths > 8) {
            throw new IllegalArgumentException("--paths is 1..8");
        }
        if (ioConnections < 1 || ioConnections > RnbdGateway.MAX_IO_CONNECTIONS) {
            throw new IllegalArgumentException("--io-connections is 1.." + RnbdGateway.MAX_IO_CONNECTIONS);
        }
        OneLineLog.install();
        claim(socket, "--socket");
        claim(ControlChannel.pathFor(socket), "control socket");
        removeStaleMemifSockets(Path.of("/run"));
        List<String> serverSockets = new ArrayList<>();
        String base = "/run/" + MEMIF_PREFIX + ProcessHandle.current().pid();
        for (int i = 0; i < paths; i++) {
            serverSockets.add(base + "-" + i + ".sock");
            claim(Path.of(serverSockets.get(i)), "memif socket");
        }
        List<String> serverArgs = new ArrayList<>(List.of("rnbd-server", "--exit-on-stdin-eof", "--ip", SERVER_IP, "--link", "memif"));
        for (String s : serverSockets) {
            serverArgs.addAll(List.of("--memif-socket", s));
        }
        String device = DEVICE;
        serverArgs.addAll(LocalDevice.of(DEVICE, size, backing).serverArgs());
        PeerProcess server = PeerProcess.start("rnbd-server", null, DataplaneJvm.OPTIONS, serverArgs);
        RnbdGateway gateway = null;
        NbdServer nbd = null;
        ControlChannel control = null;
        Exports exports = null;
        try {
            server.await("ready", 120_000);
            gateway = RnbdGateway.start(RnbdExports.specs("memif", serverSockets, List.of()), Ipv4.parse(GATEWAY_IP), Ipv4.parse(SERVER_IP),
                ServerConfig.DEFAULT_PORT, ioConnections);
            RnbdDevice d = gateway.open(device, Rnbd.ACCESS_RW, 60_000);
            exports = new Exports(List.of(new Export(DEVICE, d)));
            nbd = new NbdServer(exports, serverOptions.limits());
            log("listening on " + nbd.listen(UnixDomainSocketAddress.of(socket)) + "; " + paths + " path(s); device " + device + ", "
                + d.size() + " bytes");
            RnbdGateway g = gateway;
            control = ControlChannel.open(ControlChannel.pathFor(socket), line -> GatewayControl.handle(g, line));
        } catch (IOException | RuntimeException e) {
            stop(nbd, exports, control, gateway, server);
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        AtomicInteger status = new AtomicInteger();
        NbdServer n = nbd;
        Exports x = exports;
        ControlChannel c = control;
        RnbdGateway g = gateway;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (stopping.compareAndSet(false, true)) {
                stop(n, x, c, g, server);
            }
            stopped.countDown();
        }, "nbd-local-shutdown"));
        server.onExit().thenAccept(exit -> {
            if (stopping.compareAndSet(false, true)) {
                log("the RNBD server process (pid " + server.pid() + ") exited with status " + exit + " (" + exitReason(exit)
                    + "): its device is gone; closing the NBD socket and exiting with status " + SERVER_DIED);
                status.set(SERVER_DIED);
                stop(n, x, c, g, server);
                stopped.countDown();
            }
        });
        System.out.println("ready");
        System.out.flush();
        stopped.await();
        return status.get();
    }

    /** A signal's name for a status of 128 + N, as a shell reports a killed child. */
    private static String exitReason(int exit) {
        return switch (exit) {
            case 137 -> "killed by SIGKILL";
            case 143 -> "killed by SIGTERM";
            case 134 -> "aborted (SIGABRT)";
            case 139 -> "crashed (SIGSEGV)";
            default -> exit > 128 ? "killed by signal " + (exit - 128) : "exited";
        };
    }

    private static void claim(Path path, String what) {
        if (StaleSocket.claim(path, what)) {
            log("removed a stale " + what + " " + path + " (nobody listened on it: left by a process killed before it could)");
        }
    }

    /** memif sockets of nbd-local processes that no longer exist and that nobody listens on: litter of a SIGKILL. */
    static void removeStaleMemifSockets(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                if (!name.startsWith(MEMIF_PREFIX) || !name.endsWith(".sock")) {
                    continue;
                }
                String[] parts = name.substring(MEMIF_PREFIX.length(), name.length() - ".sock".length()).split("-");
                long pid;
                try {
                    pid = Long.parseLong(parts[0]);
                } catch (NumberFormatException e) {
                    continue;
                }
                if (ProcessHandle.of(pid).isEmpty()) {
                    try {
                        claim(f, "memif socket");
                    } catch (IllegalArgumentException e) {
                        log(e.getMessage()); // someone else's, alive: left alone
                    }
                }
            }
        } catch (IOException e) {
            // no /run to tidy
        }
    }

    /** In order: no new NBD clients, the device closed, the control socket, the session and links, the server process. */
    private static void stop(NbdServer nbd, Exports exports, ControlChannel control, RnbdGateway gateway, PeerProcess server) {
        if (nbd != null) {
            nbd.close();
        }
        if (exports != null) {
            exports.closeAll();
        }
        if (control != null) {
            control.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        server.close();
    }

    private static void log(String message) {
        System.err.println("srdnic nbd-local: " + message);
    }
}
