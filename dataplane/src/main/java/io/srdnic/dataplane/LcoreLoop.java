package io.srdnic.dataplane;

import io.srdnic.pmd.Affinity;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.lcore.HandoffCounts;
import io.srdnic.pmd.lcore.PortDispatcher;
import io.srdnic.verbs.Backoff;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.dataplane.attach.AttachServer;
import io.srdnic.dataplane.attach.ClientQuota;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One lcore of the dataplane, run to completion on its own pinned thread: the ports it receives
 * (RX burst and hand-off, {@link PortDispatcher#poll}), then its contexts' duty cycles and its
 * attached clients' rings ({@link AttachServer#doWork}), every loop. Its contexts — one per port,
 * each with an address of its own — are made, run and closed on this thread only, so each flow
 * (an SRD context, an RC/SRC connection inside one) is touched by one lcore. Lcore 0 also starts
 * EAL, opens the ports (before the others start), watches the links, and closes the ports once
 * every lcore has stopped.
 */
final class LcoreLoop implements Runnable {
    private static final System.Logger LOG = System.getLogger(LcoreLoop.class.getName());
    private static final long STOP_WAIT_MILLIS = 4_000;

    private final int index;
    private final DataplaneSetup setup;
    private final HandoffCounts[] counts;
    private final CompletableFuture<DataplanePorts> portsOpened;
    private final CompletableFuture<AttachServer> ready = new CompletableFuture<>();
    private final CountDownLatch stopped;
    private final BooleanSupplier quit;
    /** What each client of this lcore may make. */
    private final ClientQuota quota;
    /** Why this lcore stopped on its own (its loop threw: the dataplane's own failure, not a client's), or null. */
    private volatile Throwable failure;

    /** {@code portsOpened} is completed by lcore 0; {@code stopped} counts every lcore down as it stops. */
    LcoreLoop(int index, DataplaneSetup setup, HandoffCounts[] counts, CompletableFuture<DataplanePorts> portsOpened, CountDownLatch stopped,
              BooleanSupplier quit, ClientQuota quota) {
        this.quota = quota;
        this.index = index;
        this.setup = setup;
        this.counts = counts;
        this.portsOpened = portsOpened;
        this.stopped = stopped;
        this.quit = quit;
    }

    /** Why this lcore stopped other than by the quit flag, or null: the process then exits non-zero, saying why. */
    Throwable failure() {
        return failure;
    }

    /** Completed with this lcore's attach server once its clients can connect (exceptionally if it could not start). */
    CompletableFuture<AttachServer> ready() {
        return ready;
    }

    @Override
    public void run() {
        List<Context> contexts = new ArrayList<>();
        AttachServer server = null;
        LcoreCounters lcoreCounters = null;
        Eal eal = null;
        DataplanePorts ports = null;
        try {
            if (setup.cpu(index) >= 0) {
                Affinity.pinCurrentThread(setup.cpu(index));
            }
            if (index == 0) {
                eal = Eal.start(new EalConfig().memoryMb(setup.memoryMb()));
                eal.enterLoop();
                eal.registerThread();
                portsOpened.complete(DataplanePorts.open(setup.ports(), setup.lcores(), setup.firstIp(), counts));
                MemifSockets.secure(setup.ports(), setup.policy().socketGid());
            } else {
                portsOpened.join(); // EAL and the ports are up once lcore 0 has opened them
                eal = Eal.current();
                eal.enterLoop(); // EAL's shutdown hook waits for every lcore, not only lcore 0, before it frees anything
                eal.registerThread(); // mempool caches and bursts need an lcore id
            }
            ports = portsOpened.join();
            for (int p = 0; p < ports.count(); p++) {
                Device device = Device.of(ports.contextName(p, index), ports.lane(p, index), System::nanoTime);
                ContextConfig config = new ContextConfig().mode(ThreadingMode.INVOKER).ip(ports.ip(p, index)).countersDir(setup.dir());
                setup.srdSettings().forEach(config.srd()::set);
                contexts.add(Context.open(device, config));
            }
            // Client ids (and the shared files named by them) are numbered per lcore so that no two servers' clients share one.
            server = new AttachServer(RunDirectory.prepare(setup.attachDir(index)), contexts, setup.policy(), setup.shmDir(), index,
                setup.lcores());
            server.quota(quota);
            server.publishCounters(setup.dir(), index);
            lcoreCounters = new LcoreCounters(setup.dir(), index, counts[index]);
            ready.complete(server);
            loop(ports, server, lcoreCounters, eal, index == 0 ? new LinkWatch(ports.ethPorts()) : null);
        } catch (Throwable t) {
            failure = t;
            portsOpened.completeExceptionally(t); // no-op once opened; else the other lcores stop waiting
            ready.completeExceptionally(t);
            LOG.log(System.Logger.Level.ERROR, "lcore " + index + " stopped: " + t.getMessage(), t);
        } finally {
            if (server != null) {
                server.close();
            }
            contexts.forEach(Context::close);
            if (lcoreCounters != null) {
                lcoreCounters.close();
            }
            stopped.countDown();
            if (index == 0) {
                closePorts(ports, eal);
            } else if (eal != null) {
                eal.exitLoop();
            }
            LOG.log(System.Logger.Level.INFO, "lcore {0} stopped", index);
        }
    }

    private void loop(DataplanePorts ports, AttachServer server, LcoreCounters lcoreCounters, Eal eal, LinkWatch links) {
        List<PortDispatcher> received = new ArrayList<>();
        for (int p = 0; p < ports.count(); p++) {
            if (ports.receiverOf(p) == index && ports.dispatcher(p) != null) {
                received.add(ports.dispatcher(p));
            }
        }
        PortDispatcher[] dispatchers = received.toArray(PortDispatcher[]::new);
        int idle = 0;
        while (!quit.getAsBoolean() && !eal.quitRequested()) {
            long now = System.nanoTime();
            if (links != null) {
                links.check(now);
            }
            int work = 0;
            for (PortDispatcher d : dispatchers) {
                work += d.poll();
            }
            work += server.doWork(now);
            lcoreCounters.onLoop(now, work);
            if (work > 0) {
                idle = 0;
            } else {
                Backoff.idle(++idle, setup.busySpin(), 20_000);
            }
        }
    }

    /** Lcore 0, last: once the others have stopped (bounded), the rings are emptied and the ports closed; then EAL may go. */
    private void closePorts(DataplanePorts ports, Eal eal) {
        try {
            if (!stopped.await(STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "not every lcore stopped within {0} ms: closing the ports anyway", STOP_WAIT_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (ports != null) {
            ports.close();
        }
        if (eal != null) {
            eal.exitLoop();
        }
    }
}
