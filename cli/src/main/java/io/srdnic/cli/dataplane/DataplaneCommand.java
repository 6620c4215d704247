package io.srdnic.cli.dataplane;

import io.srdnic.pmd.Affinity;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPort;
import io.srdnic.verbs.Backoff;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.attach.AllowRule;
import io.srdnic.verbs.attach.AttachServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic dataplane}: the dedicated dataplane process. It owns its ports (EAL runs here),
 * runs their transports on one pinned lcore thread — RX burst, transport, TX burst, then every
 * attached client's rings, run to completion — and serves applications that attach with
 * {@code Device.attached(DIR)} through {@code DIR/control.sock}. {@code DIR/dataplane.pid} is held
 * locked so two dataplanes cannot own one DIR. SIGINT/SIGTERM stop it in order: the lcore leaves its
 * loop, clients are dropped and their objects reclaimed, contexts closed, then EAL's own shutdown
 * hook closes the ports. Prints {@code ready} on stdout once clients can connect, and
 * {@code link up <i>} when port i's link first comes up.
 */
@Command(name = "dataplane", mixinStandardHelpOptions = true,
    description = "Run the dedicated dataplane: own the ports, serve attached applications over DIR/control.sock.")
public final class DataplaneCommand implements Callable<Integer> {
    private static final System.Logger LOG = System.getLogger(DataplaneCommand.class.getName());

    @Option(names = "--port", required = true, paramLabel = "SPEC",
        description = "A DPDK device by its EAL spec, e.g. net_memif0,role=server,socket=/run/m.sock (repeatable; port i gets --ip + i).")
    List<String> ports = new ArrayList<>();

    @Option(names = "--lcores", defaultValue = "1",
        description = "Lcore threads (default ${DEFAULT-VALUE}; only 1 is implemented: see docs/dataplane.md for what more need).")
    int lcores;

    @Option(names = "--cpu", defaultValue = "-1", description = "Pin the lcore thread to this CPU (default: let the scheduler place it).")
    int cpu;

    @Option(names = "--dir", defaultValue = "/run/srdnic", description = "Control socket and PID file directory (default ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--shm-dir", defaultValue = "/dev/shm", description = "Where clients' shared files are made (default ${DEFAULT-VALUE}).")
    Path shmDir;

    @Option(names = "--ip", defaultValue = "10.0.0.1", description = "IPv4 address of the first port (default ${DEFAULT-VALUE}).")
    String ip;

    @Option(names = "--memory-mb", defaultValue = "512", description = "EAL memory in MiB (default ${DEFAULT-VALUE}).")
    int memoryMb;

    @Option(names = "--busy-spin", description = "Never park the idle lcore (lowest latency; burns its core).")
    boolean busySpin;

    @Option(names = "--log-level", defaultValue = "INFO", description = "SEVERE, WARNING, INFO, FINE (default ${DEFAULT-VALUE}); logs go to stderr.")
    String logLevel;

    private volatile boolean quit;

    @Override
    public Integer call() throws Exception {
        if (lcores != 1) {
            throw new IllegalArgumentException("--lcores " + lcores + ": this dataplane runs one lcore (docs/dataplane.md says what more"
                + " need: RSS or rte_flow by UDP destination port, or an SPSC hand-off)");
        }
        configureLogging(Level.parse(logLevel));
        int firstIp = java.nio.ByteBuffer.wrap(java.net.Inet4Address.ofLiteral(ip).getAddress()).getInt();
        try (PidLock lock = PidLock.acquire(dir)) {
            CompletableFuture<AttachServer> ready = new CompletableFuture<>();
            Thread lcore = new Thread(() -> runLcore(firstIp, lock.path(), ready), "srdnic-lcore-0");
            Thread hook = new Thread(() -> {
                quit = true;
                join(lcore);
            }, "srdnic-dataplane-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            lcore.start();
            AttachServer server = ready.join();
            System.out.println("ready");
            System.out.flush();
            LOG.log(System.Logger.Level.INFO, "dataplane pid {0} serving {1} port(s) on {2}", ProcessHandle.current().pid(), ports.size(),
                server.socketPath());
            lcore.join(); // until a signal (the hook) or a failure stops it
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is what stopped us
            }
        }
        return 0;
    }

    /** The lcore: EAL, the ports' contexts and the attach server are made on it, and it runs them until asked to quit. */
    private void runLcore(int firstIp, Path pidFile, CompletableFuture<AttachServer> ready) {
        List<Context> contexts = new ArrayList<>();
        AttachServer server = null;
        Eal eal = null;
        try {
            if (cpu >= 0) {
                Affinity.pinCurrentThread(cpu);
            }
            eal = Eal.start(new EalConfig().memoryMb(memoryMb));
            eal.enterLoop();
            eal.registerThread();
            List<EthPort> ethPorts = new ArrayList<>();
            for (int i = 0; i < ports.size(); i++) {
                Device device = Device.dpdk(ports.get(i));
                ethPorts.add(device.ethPort());
                // Its counters go in DIR, where `srdnic stat --dir DIR` reads them.
                contexts.add(Context.open(device, new ContextConfig().mode(ThreadingMode.INVOKER).ip(firstIp + i).countersDir(dir)));
            }
            server = new AttachServer(dir, contexts, AllowRule.sameUserOrRoot(pidFile), shmDir);
            server.publishCounters(dir);
            ready.complete(server);
            loop(server, eal, new LinkWatch(ethPorts));
        } catch (Throwable t) {
            ready.completeExceptionally(t);
            LOG.log(System.Logger.Level.ERROR, "the lcore stopped: " + t.getMessage(), t);
        } finally {
            if (server != null) {
                server.close();
            }
            contexts.forEach(Context::close);
            if (eal != null) {
                eal.exitLoop();
            }
            LOG.log(System.Logger.Level.INFO, "lcore 0 stopped");
        }
    }

    private void loop(AttachServer server, Eal eal, LinkWatch links) {
        int idle = 0;
        while (!quit && !eal.quitRequested()) {
            long now = System.nanoTime();
            links.check(now);
            if (server.doWork(now) > 0) {
                idle = 0;
            } else {
                Backoff.idle(++idle, busySpin, 20_000);
            }
        }
    }

    /** The shutdown hook's wait: bounded, so a stuck lcore cannot hold the JVM up (EAL's hook waits 2 s for loops too). */
    private static void join(Thread t) {
        try {
            t.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void configureLogging(Level level) {
        Logger root = Logger.getLogger("");
        root.setLevel(level);
        for (var h : root.getHandlers()) {
            h.setLevel(level);
        }
        if (root.getHandlers().length == 0) {
            ConsoleHandler h = new ConsoleHandler();
            h.setLevel(level);
            root.addHandler(h);
        }
    }
}
