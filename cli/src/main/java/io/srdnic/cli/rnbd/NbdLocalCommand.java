package io.srdnic.cli.rnbd;

import io.srdnic.cli.pktgen.PeerProcess;
import io.srdnic.nbd.Export;
import io.srdnic.nbd.Exports;
import io.srdnic.nbd.NbdServer;
import io.srdnic.nbd.spec.Sizes;
import io.srdnic.rnbd.client.RnbdDevice;
import io.srdnic.rnbd.protocol.Rnbd;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
 */
@Command(name = "nbd-local", mixinStandardHelpOptions = true,
    description = "NBD on a unix socket, backed by an RNBD server in a second process over RTRS on memif links; prints 'ready'.")
public final class NbdLocalCommand implements Callable<Integer> {
    static final String DEVICE = "disk";
    static final String SERVER_IP = "10.0.0.1";
    static final String GATEWAY_IP = "10.0.0.2";

    @Option(names = "--socket", required = true, paramLabel = "PATH", description = "The NBD unix socket (must not exist; removed on exit).")
    Path socket;

    @Option(names = "--size", required = true, paramLabel = "BYTES", description = "The device's size (e.g. 1G): a multiple of 512.")
    String size;

    @Option(names = "--paths", defaultValue = "2", description = "RTRS paths, one memif link each (default ${DEFAULT-VALUE}).")
    int paths;

    @Option(names = "--transport", defaultValue = "rc", description = "rc (the only one: RTRS paths are CM connections, which are RC).")
    String transport;

    @Option(names = "--backing", paramLabel = "FILE", description = "Serve this file (made, of --size, if missing) instead of memory.")
    Path backing;

    @Mixin
    io.srdnic.cli.nbd.NbdServerOptions serverOptions = new io.srdnic.cli.nbd.NbdServerOptions();

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (!"rc".equals(transport)) {
            throw new IllegalArgumentException("--transport " + transport + ": RTRS over SRD is not possible here: RTRS makes its paths"
                + " through the connection manager, which makes RC connections; use rc");
        }
        if (paths < 1 || paths > 8) {
            throw new IllegalArgumentException("--paths is 1..8");
        }
        long bytes = Sizes.parse(size);
        if (bytes <= 0 || bytes % Rnbd.SECTOR_SIZE != 0) {
            throw new IllegalArgumentException("--size must be a positive multiple of 512: " + size);
        }
        if (Files.exists(socket)) {
            throw new IllegalArgumentException("--socket " + socket + " exists already");
        }
        List<String> serverSockets = new ArrayList<>();
        String base = "/run/srdnic-nbd-local-" + ProcessHandle.current().pid();
        for (int i = 0; i < paths; i++) {
            serverSockets.add(base + "-" + i + ".sock");
        }
        List<String> serverArgs = new ArrayList<>(List.of("rnbd-server", "--exit-on-stdin-eof", "--ip", SERVER_IP, "--link", "memif"));
        for (String s : serverSockets) {
            serverArgs.addAll(List.of("--memif-socket", s));
        }
        String device = DEVICE;
        if (backing != null) {
            Path file = backing.toAbsolutePath();
            if (!Files.exists(file)) {
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                    f.setLength(bytes);
                }
            }
            serverArgs.addAll(List.of("--export-dir", file.getParent().toString()));
            device = file.getFileName().toString();
        } else {
            serverArgs.addAll(List.of("--memory", DEVICE + "=" + bytes));
        }
        PeerProcess server = PeerProcess.start("rnbd-server", null, serverArgs);
        RnbdGateway gateway = null;
        NbdServer nbd = null;
        ControlChannel control = null;
        Exports exports = null;
        try {
            server.await("ready", 120_000);
            gateway = RnbdGateway.start(RnbdExports.specs("memif", serverSockets, List.of()), Ipv4.parse(GATEWAY_IP), Ipv4.parse(SERVER_IP),
                io.srdnic.rtrs.server.ServerConfig.DEFAULT_PORT);
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
        NbdServer n = nbd;
        Exports x = exports;
        ControlChannel c = control;
        RnbdGateway g = gateway;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop(n, x, c, g, server);
            stopped.countDown();
        }, "nbd-local-shutdown"));
        System.out.println("ready");
        System.out.flush();
        stopped.await();
        return 0;
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
