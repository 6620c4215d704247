package io.srdnic.cli.rnbd;

import io.srdnic.cli.net.MemifSpec;
import io.srdnic.nbd.spec.Sizes;
import io.srdnic.rnbd.server.ExportDirectory;
import io.srdnic.rnbd.server.RnbdServer;
import io.srdnic.rtrs.server.RtrsServer;
import io.srdnic.rtrs.server.ServerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic rnbd-server}: an RTRS server on one DPDK link per path, RNBD on top, exporting
 * the files under a directory and memory devices. Prints {@code ready} once it listens; serves
 * until SIGTERM (or, with --exit-on-stdin-eof, until its stdin closes: how nbd-local's child ends).
 */
@Command(name = "rnbd-server", mixinStandardHelpOptions = true,
    description = "Serve block devices over RNBD on RTRS (RC) across DPDK links; prints 'ready' once it listens.")
public final class RnbdServerCommand implements Callable<Integer> {
    @Option(names = "--export-dir", paramLabel = "DIR", description = "Export the regular files under DIR (by relative path; no escapes).")
    Path exportDir;

    @Option(names = "--memory", paramLabel = "NAME=SIZE", description = "A memory-backed device (e.g. disk=1G). Repeatable.")
    List<String> memory = new ArrayList<>();

    @Option(names = "--export-file", paramLabel = "NAME=PATH",
            description = "Export one regular file as NAME, nothing else of its directory. Repeatable.")
    List<String> exportFiles = new ArrayList<>();

    @Option(names = "--link", defaultValue = "memif",
            description = "memif (one --memif-socket per path) or vdev (one --vdev per path; af_xdp on a veth or NIC).")
    String link;

    @Option(names = "--memif-socket", paramLabel = "PATH",
            description = "memif: a control socket per path (this side listens). Repeatable.")
    List<String> memifSockets = new ArrayList<>();

    @Option(names = "--vdev", paramLabel = "SPEC",
            description = "vdev: an EAL device spec per path, e.g. net_af_xdp0,iface=veth1. Repeatable.")
    List<String> vdevs = new ArrayList<>();

    @Option(names = "--ip", defaultValue = "10.0.0.1", description = "This side's IPv4 address on every link (default ${DEFAULT-VALUE}).")
    String ip;

    @Option(names = "--port", defaultValue = "1234", description = "The RTRS port (default ${DEFAULT-VALUE}, Linux's).")
    int port;

    @Option(names = "--queue-depth", defaultValue = "128", description = "Chunks per session (default ${DEFAULT-VALUE}; Linux: 512).")
    int queueDepth;

    @Option(names = "--io-threads", defaultValue = "2", description = "Threads that run file devices' IO off the poll thread"
        + " (default ${DEFAULT-VALUE}; 0: on the poll thread). Memory devices run on the poll thread.")
    int ioThreads;

    @Option(names = "--transport", defaultValue = "rc", description = "rc only: RTRS connects through the CM, which makes RC connections.")
    String transport;

    @Option(names = "--exit-on-stdin-eof", hidden = true, description = "Exit when stdin closes (a child of nbd-local).")
    boolean exitOnStdinEof;

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (!"rc".equals(transport)) {
            throw new IllegalArgumentException("--transport " + transport + ": RTRS runs on RC only (its paths are CM connections)");
        }
        OneLineLog.install();
        List<String> specs = specs(link, memifSockets, vdevs, "server");
        for (String m : memifSockets) {
            if (StaleSocket.claim(Path.of(m), "memif socket")) {
                System.err.println("srdnic rnbd-server: removed a stale memif socket " + m + " (nobody listened on it)");
            }
        }
        ExportDirectory exports = new ExportDirectory(exportDir);
        for (String m : memory) {
            int eq = m.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--memory " + m + ": expected NAME=SIZE");
            }
            exports.memory(m.substring(0, eq), Sizes.parse(m.substring(eq + 1)));
        }
        for (String f : exportFiles) {
            int eq = f.indexOf('=');
            if (eq <= 0 || eq == f.length() - 1) {
                throw new IllegalArgumentException("--export-file " + f + ": expected NAME=PATH");
            }
            exports.file(f.substring(0, eq), Path.of(f.substring(eq + 1)));
        }
        if (exportDir == null && memory.isEmpty() && exportFiles.isEmpty()) {
            throw new IllegalArgumentException("nothing to export: give --export-dir DIR, --export-file NAME=PATH and/or --memory "
                    + "NAME=SIZE");
        }
        ServeLoop loop = new ServeLoop(exitOnStdinEof);
        RnbdServer rnbd = new RnbdServer(exports, ioThreads);
        WakeableIdle idle = ServeLoop.idleStrategy();
        rnbd.onIoFinished(idle::wake); // a finished file IO is answered at once, not after the loop's sleep
        RtrsServer server = null;
        DpdkLinks links = null;
        try {
            links = DpdkLinks.open(specs, Ipv4.parse(ip));
            server = RtrsServer.open(new ServerConfig().port(port).queueDepth(queueDepth)
                .heartbeat(RnbdGateway.HEARTBEAT_NANOS, RnbdGateway.HEARTBEAT_MISSED), links.contexts(), rnbd);
            System.err.println("srdnic rnbd-server: " + specs.size() + " link(s), RTRS port " + port + ", exports "
                + (exportDir != null ? exportDir + " " : "") + memory + (exportFiles.isEmpty() ? "" : " " + exportFiles));
            System.out.println("ready");
            System.out.flush();
            RtrsServer rtrs = server;
            loop.run(() -> rtrs.poll() + rnbd.poll(), links::quitRequested, idle);
        } finally {
            if (server != null) {
                server.close();
            }
            rnbd.close();
            if (links != null) {
                links.close();
            }
            loop.finished();
        }
        return 0;
    }

    /** The EAL device specs of the links: memif sockets (in {@code role}) or vdev specs as given. */
    static List<String> specs(String link, List<String> memifSockets, List<String> vdevs, String role) {
        List<String> specs = new ArrayList<>();
        switch (link) {
            case "memif" -> {
                for (int i = 0; i < memifSockets.size(); i++) {
                    specs.add(MemifSpec.of(role, memifSockets.get(i), i));
                }
            }
            case "vdev" -> specs.addAll(vdevs);
            default -> throw new IllegalArgumentException("--link " + link + ": memif or vdev");
        }
        if (specs.isEmpty()) {
            throw new IllegalArgumentException("no link: give --memif-socket PATH (memif) or --vdev SPEC (vdev), one per path");
        }
        return specs;
    }
}
