package io.srdnic.cli.nbd;

import io.srdnic.cli.rnbd.RnbdExports;
import io.srdnic.nbd.Export;
import io.srdnic.nbd.Exports;
import io.srdnic.nbd.NbdServer;
import io.srdnic.nbd.ServerLimits;
import io.srdnic.nbd.spec.ExportSpecs;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code srdnic nbd}: serves exports over NBD on a unix socket and/or loopback TCP until SIGTERM
 * (or SIGINT), then stops accepting, lets clients finish, removes the socket file and closes the
 * devices. Prints {@code ready} on stdout once clients can connect.
 */
@Command(name = "nbd", mixinStandardHelpOptions = true,
    description = "Serve block devices over NBD (fixed newstyle) until SIGTERM; prints 'ready' once clients can connect.")
public final class NbdCommand implements Callable<Integer> {
    @Option(names = "--export", required = true, paramLabel = "NAME=KIND:ARG",
        description = "An export: NAME=mem:SIZE (sparse memory, e.g. 1G), NAME=file:PATH, "
                + "NAME=rnbd://SERVER/PATH[?mode=ro|rw|migration] (with --rnbd-memif-socket or --rnbd-vdev per path)."
            + " Repeatable; the first is also the default export (empty name).")
    List<String> exports = new ArrayList<>();

    @Option(names = "--socket", paramLabel = "PATH", description = "Listen on this unix socket (must not exist; removed on exit).")
    Path socket;

    @Option(names = "--port", paramLabel = "P", description = "Listen on TCP port P (0: any free port, logged on stderr).")
    Integer port;

    @Option(names = "--bind", defaultValue = "127.0.0.1", paramLabel = "ADDR",
        description = "The address for --port (default ${DEFAULT-VALUE}: loopback only; NBD has no authentication).")
    String bind;

    @Option(names = "--rnbd-link", defaultValue = "memif",
            description = "rnbd exports: memif (--rnbd-memif-socket per path) or vdev (--rnbd-vdev per path).")
    String rnbdLink;

    @Option(names = "--rnbd-memif-socket", paramLabel = "PATH",
            description = "rnbd exports: a memif socket per path (the server listens on it). Repeatable.")
    List<String> rnbdMemifSockets = new ArrayList<>();

    @Option(names = "--rnbd-vdev", paramLabel = "SPEC",
            description = "rnbd exports: an EAL device spec per path (--rnbd-link vdev). Repeatable.")
    List<String> rnbdVdevs = new ArrayList<>();

    @Option(names = "--rnbd-ip", defaultValue = "10.0.0.2",
            description = "rnbd exports: this side's IPv4 address on the links (default ${DEFAULT-VALUE}).")
    String rnbdIp;

    @Option(names = "--rnbd-port", defaultValue = "1234", description = "rnbd exports: the server's RTRS port (default ${DEFAULT-VALUE}).")
    int rnbdPort;

    @Mixin
    NbdServerOptions serverOptions = new NbdServerOptions();

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (socket == null && port == null) {
            throw new IllegalArgumentException("give --socket PATH and/or --port P");
        }
        ServerLimits limits = serverOptions.limits();
        boolean rnbd = exports.stream().anyMatch(e -> e.contains("=rnbd:"));
        RnbdExports rnbdExports = new RnbdExports(rnbd ? RnbdExports.specs(rnbdLink, rnbdMemifSockets, rnbdVdevs) : List.of(),
            RnbdExports.ip(rnbdIp), rnbdPort);
        ExportSpecs specs = rnbdExports.register(ExportSpecs.local());
        List<Export> opened = new ArrayList<>();
        Exports all;
        try {
            for (String spec : exports) {
                opened.add(specs.open(spec));
            }
            all = new Exports(opened);
        } catch (IOException | RuntimeException e) {
            opened.forEach(x -> x.device().close());
            rnbdExports.close();
            throw e;
        }
        NbdServer server = new NbdServer(all, limits);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            server.close();
            all.closeAll();
            rnbdExports.close();
            stopped.countDown();
        }, "nbd-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (socket != null) {
                log("listening on " + server.listen(UnixDomainSocketAddress.of(socket)));
            }
            if (port != null) {
                SocketAddress bound = server.listen(new InetSocketAddress(InetAddress.getByName(bind), port));
                log("listening on " + bound);
            }
        } catch (IOException | RuntimeException e) {
            Runtime.getRuntime().removeShutdownHook(hook);
            server.close();
            all.closeAll();
            rnbdExports.close();
            throw e;
        }
        for (Export e : opened) {
            log("export " + e.name() + ": " + e.device().description() + (e.device().readOnly() ? " (read-only)" : ""));
        }
        System.out.println("ready");
        System.out.flush();
        stopped.await(); // the shutdown hook ends the wait and the JVM together
        return 0;
    }

    private static void log(String message) {
        System.err.println("srdnic nbd: " + message);
    }
}
