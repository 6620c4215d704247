package io.srdnic.pmd;

import io.srdnic.ffm.rte_eal_h;
import io.srdnic.ffm.srdnic_shim_h;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * DPDK's Environment Abstraction Layer: one per process, shared by every port and context in it.
 * <p>
 * DPDK can initialise EAL only once per process (a second rte_eal_init fails even after cleanup),
 * so {@link #start} refuses a second start and {@link #startOrGet} returns the running one.
 * {@link #close()} — or a JVM shutdown, including SIGINT/SIGTERM — asks dataplane loops to quit,
 * waits for them, closes every port, pool and ring still open (newest first), cleans EAL up and
 * removes the runtime directory EAL created, so nothing is left under /var/run/dpdk.
 */
public final class Eal implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Eal.class.getName());
    /** How long cleanup waits for EAL's interrupt thread, which runs only short driver callbacks. */
    private static final int INTERRUPT_THREAD_WAIT_MILLIS = 5_000;
    private static Eal instance;
    private static boolean everStarted;

    private final EalConfig config;
    private final Path runtimeDir;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final AtomicInteger activeLoops = new AtomicInteger();
    private final Thread shutdownHook;
    private volatile boolean quitRequested;
    private boolean closed;

    private Eal(EalConfig config, Path runtimeDir) {
        this.config = config;
        this.runtimeDir = runtimeDir;
        this.shutdownHook = new Thread(this::shutdownFromSignal, "srdnic-eal-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts EAL with {@code config}; throws if EAL was already started in this process. */
    public static synchronized Eal start(EalConfig config) {
        if (everStarted) {
            throw new IllegalStateException("EAL is already started in this process (DPDK allows one rte_eal_init per process): use "
                    + "Eal.current()");
        }
        List<String> args = config.toArguments();
        LOG.log(System.Logger.Level.DEBUG, "rte_eal_init {0}", args);
        // EAL runs its control threads (the interrupt thread: memif connections, link changes) on the
        // CPUs the calling thread may use outside every lcore, else on lcore 0's. A caller pinned to
        // its loop's CPU would put them beside that busy loop: let it use the process's CPUs too while
        // EAL starts (lcore 0's map, made above, still names the pinned CPU, and EAL pins it back).
        // The union, not the process's set alone: under isolcpus the loop's CPU is outside the set the
        // process was launched with. Best effort: a host whose CPU set this cannot read starts as before.
        byte[] caller = config.defaultLcores() ? widenForControlThreads() : null;
        MemorySegment argv = Arena.global().allocate(ValueLayout.ADDRESS, args.size() + 1L);
        for (int i = 0; i < args.size(); i++) {
            // EAL keeps pointers into argv: the strings live in the global arena for the whole process.
            argv.setAtIndex(ValueLayout.ADDRESS, i, Arena.global().allocateFrom(args.get(i)));
        }
        everStarted = true;
        int rc = rte_eal_h.rte_eal_init(args.size(), argv);
        if (caller != null) {
            restore(caller); // a refused start, or EAL left it widened: as the caller had it
        }
        if (rc < 0) {
            // EAL may have got as far as making its runtime directory (a hugepage request that
            // finds none fails after it): nothing of a refused start stays under /var/run/dpdk.
            removeRuntimeDirOfFailedStart();
            throw DpdkException.fromRteErrno("rte_eal_init refused " + String.join(" ", args),
                "check the --vdev specs (is the PMD installed?), the memory size (-m), hugepages (or use --no-huge) and the file prefix;"
                    + " EAL's own log above says which argument; a process can try EAL only once");
        }
        Path dir = Path.of(rte_eal_h.rte_eal_get_runtime_dir().reinterpret(4096).getString(0));
        instance = new Eal(config, dir);
        return instance;
    }

    /** Widens the calling thread to its CPUs and the process's; returns its own set to restore, or null if it could not. */
    private static byte[] widenForControlThreads() {
        try {
            byte[] caller = Affinity.currentThreadCpus();
            byte[] union = Affinity.union(caller, Affinity.processCpus());
            if (!Arrays.equals(union, caller)) {
                Affinity.restoreCurrentThread(union);
            }
            return caller;
        } catch (IllegalStateException e) {
            LOG.log(System.Logger.Level.WARNING, "EAL's control threads may share the loop's CPU: {0}", e.getMessage());
            return null;
        }
    }

    private static void restore(byte[] caller) {
        try {
            if (!Arrays.equals(Affinity.currentThreadCpus(), caller)) {
                Affinity.restoreCurrentThread(caller);
            }
        } catch (IllegalStateException e) {
            LOG.log(System.Logger.Level.WARNING, "could not put the thread that started EAL back on its CPUs: {0}", e.getMessage());
        }
    }

    /** The running EAL, or a new one started with {@code config}. */
    public static synchronized Eal startOrGet(EalConfig config) {
        return instance != null ? instance : start(config);
    }

    /** The running EAL; throws if none has been started. */
    public static synchronized Eal current() {
        if (instance == null) {
            throw new IllegalStateException("EAL is not started: call Eal.start(EalConfig) first");
        }
        return instance;
    }

    public static synchronized boolean isRunning() {
        return instance != null;
    }

    public EalConfig config() {
        return config;
    }

    /** The runtime directory EAL created; removed on close. */
    public Path runtimeDir() {
        return runtimeDir;
    }

    /** Set once shutdown begins: dataplane loops poll it and return. */
    public boolean quitRequested() {
        return quitRequested;
    }

    /** Registers the calling thread with DPDK (an lcore id, so mempool caches work); returns its lcore id. */
    public int registerThread() {
        int lcore = srdnic_shim_h.srdnic_lcore_id();
        if (lcore >= 0 && lcore < 1024) {
            return lcore; // already an EAL or registered thread
        }
        DpdkException.check(rte_eal_h.rte_thread_register() < 0 ? -srdnic_shim_h.srdnic_errno() : 0,
            "rte_thread_register", "too many threads registered: raise RTE_MAX_LCORE or reuse threads");
        return srdnic_shim_h.srdnic_lcore_id();
    }

    public void unregisterThread() {
        rte_eal_h.rte_thread_unregister();
    }

    /** A dataplane loop announces itself so shutdown waits for it to leave before freeing ports. */
    public void enterLoop() {
        activeLoops.incrementAndGet();
    }

    public void exitLoop() {
        activeLoops.decrementAndGet();
    }

    synchronized void register(AutoCloseable resource) {
        if (closed) {
            throw new IllegalStateException("EAL is closed");
        }
        resources.push(resource);
    }

    synchronized void unregister(AutoCloseable resource) {
        resources.remove(resource);
    }

    /** Stops loops, closes every resource still open, cleans EAL up and removes its runtime directory. */
    @Override
    public void close() {
        shutdown();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // called from the hook itself
        }
    }

    private void shutdownFromSignal() {
        shutdown();
    }

    private void shutdown() {
        quitRequested = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (activeLoops.get() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        List<AutoCloseable> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(resources);
            resources.clear();
        }
        for (AutoCloseable resource : toClose) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "closing " + resource + " failed: " + e.getMessage());
            }
        }
        awaitInterruptThreadIdle();
        rte_eal_h.rte_eal_cleanup();
        deleteRecursively(runtimeDir);
        synchronized (Eal.class) {
            instance = null;
        }
    }

    /**
     * Lets EAL's interrupt thread finish what closing the ports gave it before rte_eal_cleanup unmaps
     * DPDK memory: that thread lives on, and reads the handles of every callback still registered
     * whenever it wakes, some of them in that memory (net_memif's listening socket is never
     * unregistered). Reading them after the unmap was a SIGSEGV in rte_intr_fd_get.
     */
    private static void awaitInterruptThreadIdle() {
        if (srdnic_shim_h.srdnic_intr_thread_barrier(INTERRUPT_THREAD_WAIT_MILLIS) < 0) {
            LOG.log(System.Logger.Level.WARNING, "EAL's interrupt thread did not come round within " + INTERRUPT_THREAD_WAIT_MILLIS
                + " ms: cleaning EAL up anyway");
        }
    }

    private static void removeRuntimeDirOfFailedStart() {
        MemorySegment name = rte_eal_h.rte_eal_get_runtime_dir();
        if (name.equals(MemorySegment.NULL)) {
            return;
        }
        String dir = name.reinterpret(4096).getString(0);
        // Only this process's own directory (the default file prefix srdnic-<pid>): a prefix the
        // caller chose may be another process's, whose directory is not ours to remove.
        Path path = dir.isEmpty() ? null : Path.of(dir).getFileName();
        if (path != null && path.toString().equals("srdnic-" + ProcessHandle.current().pid())) {
            deleteRecursively(Path.of(dir));
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove EAL runtime directory " + dir, e);
        }
    }
}
