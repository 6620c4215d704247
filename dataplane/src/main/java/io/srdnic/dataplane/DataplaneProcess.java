package io.srdnic.dataplane;

import io.srdnic.dataplane.attach.AttachPolicy;
import io.srdnic.dataplane.attach.AttachServer;
import io.srdnic.dataplane.attach.ClientQuota;
import io.srdnic.dataplane.attach.TotalQuota;
import io.srdnic.pmd.lcore.HandoffCounts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

/**
 * The dedicated dataplane process, started by {@code srdnic dataplane}: it owns its ports (EAL runs
 * here), runs their transports on pinned lcore threads (each an Agrona {@link AgentRunner} of one
 * {@link LcoreLoop} agent, idling by {@link IdleStrategies}) — RX burst, hand-off to
 * the owning lcore, transport, TX burst, then every attached client's rings, run to completion — and
 * serves applications that attach with {@code Device.attached(DIR)} through {@code DIR/control.sock}
 * (lcore k > 0: {@code DIR/lcore-k}). {@code DIR/dataplane.pid} is held locked so two dataplanes
 * cannot own one DIR. SIGINT/SIGTERM stop it in order: every lcore leaves its loop, drops its clients
 * (reclaiming their objects) and closes its contexts; then lcore 0 frees what the hand-off rings hold,
 * closes the ports and leaves EAL to its own shutdown hook. Prints {@code ready} on stdout once every
 * lcore's clients can connect, and {@code link up <i>} when port i's link first comes up.
 */
public final class DataplaneProcess {
    private static final System.Logger LOG = System.getLogger(DataplaneProcess.class.getName());

    private final List<String> ports;
    private final int lcores;
    private final List<Integer> cpus;
    private final int firstIp;
    private final Path dir;
    private final Path shmDir;
    private final int memoryMb;
    /** What an idle lcore does: {@link IdleStrategies}. */
    private final String idle;
    private final Map<String, String> settings;
    private final AttachPolicy policy;
    private final ClientQuota quota;
    private final TotalQuota totals;
    private volatile boolean quit;

    /**
     * The options, already checked by the command: {@code shmDir} null for sealed memfds; {@code firstIp} the first port's IPv4
     * address; {@code idle} the idle strategy's name ({@link IdleStrategies#named}).
     */
    public DataplaneProcess(List<String> ports, int lcores, List<Integer> cpus, int firstIp, Path dir, Path shmDir, int memoryMb,
                            String idle, Map<String, String> settings, AttachPolicy policy, ClientQuota quota,
                            TotalQuota totals) {
        this.ports = List.copyOf(ports);
        this.lcores = lcores;
        this.cpus = List.copyOf(cpus);
        this.firstIp = firstIp;
        this.dir = dir;
        this.shmDir = shmDir;
        this.memoryMb = memoryMb;
        this.idle = idle;
        this.settings = Map.copyOf(settings);
        this.policy = policy;
        this.quota = quota;
        this.totals = totals;
    }

    /**
     * Runs the dataplane until SIGINT/SIGTERM (returns normally) or an lcore's own failure (throws,
     * saying which lcore and why, so the process exits non-zero).
     */
    public void run() throws Exception {
        Supplier<IdleStrategy> idleStrategy = IdleStrategies.named(idle);
        RunDirectory.prepare(dir);
        if (shmDir != null) { // without --shm-dir clients' memory is a sealed memfd each: no directory to check
            ShmDirectory.check(shmDir);
        }
        try (PidLock lock = PidLock.acquire(dir)) {
            StaleFiles.sweep(dir, shmDir, StaleFiles.EAL_RUNTIME, lcores);
            List<String> specs = ports.stream().map(p -> MemifSockets.withDefaults(p, dir)).toList();
            MemifSockets.removeStale(specs);
            DataplaneSetup setup = new DataplaneSetup(specs, lcores, cpus, firstIp, dir, shmDir, lock.path(), memoryMb,
                idle.equals(IdleStrategies.SPIN), settings, policy, totals);
            HandoffCounts[] counts = new HandoffCounts[lcores];
            Arrays.setAll(counts, k -> new HandoffCounts());
            CompletableFuture<DataplanePorts> portsOpened = new CompletableFuture<>();
            CountDownLatch stopped = new CountDownLatch(lcores);
            List<Thread> threads = new ArrayList<>();
            List<LcoreLoop> loops = new ArrayList<>();
            for (int k = 0; k < lcores; k++) {
                LcoreLoop loop = new LcoreLoop(k, setup, counts, portsOpened, stopped, () -> quit, quota);
                loops.add(loop);
                AgentRunner runner = new AgentRunner(idleStrategy.get(), loop::onError, null, loop);
                threads.add(new Thread(runner, loop.roleName()));
            }
            Thread hook = new Thread(() -> {
                quit = true;
                threads.forEach(DataplaneProcess::join);
            }, "srdnic-dataplane-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            threads.forEach(Thread::start);
            try {
                for (int k = 0; k < lcores; k++) {
                    AttachServer server = loops.get(k).ready().join();
                    LOG.log(System.Logger.Level.INFO, "lcore {0} serving its context on each of {1} port(s) on {2}", String.valueOf(k),
                        String.valueOf(ports.size()),
                        server.socketPath());
                }
            } catch (CompletionException e) {
                quit = true; // one lcore could not start: the others stop too
                threads.forEach(DataplaneProcess::join);
                throw e;
            }
            System.out.println("ready");
            System.out.flush();
            LOG.log(System.Logger.Level.INFO, "dataplane pid {0} running {1} lcore(s); all clients together may hold {2}",
                String.valueOf(ProcessHandle.current().pid()), String.valueOf(lcores), totals); // as text: MessageFormat groups digits
            while (stopped.getCount() == lcores && !quit) {
                Thread.sleep(50); // until a signal (the hook) or a failure stops an lcore
            }
            quit = true; // one lcore gone (its flows with it): the others stop too, in order
            for (Thread t : threads) {
                t.join();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is what stopped us
            }
            for (int k = 0; k < lcores; k++) {
                Throwable failure = loops.get(k).failure();
                if (failure != null) { // an internal failure, not a stop asked for: exit status 1, saying why
                    throw new IllegalStateException("lcore " + k + " failed, the dataplane stopped: " + failure, failure);
                }
            }
        }
    }

    /** The shutdown hook's wait: bounded, so a stuck lcore cannot hold the JVM up (EAL's hook waits 2 s for loops too). */
    private static void join(Thread t) {
        try {
            t.join(6_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
