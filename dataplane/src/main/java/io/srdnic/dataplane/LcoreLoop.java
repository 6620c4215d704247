package io.srdnic.dataplane;

import io.srdnic.dataplane.attach.AttachServer;
import io.srdnic.dataplane.attach.ClientQuota;
import io.srdnic.pmd.Affinity;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.lcore.HandoffCounts;
import io.srdnic.pmd.lcore.PortDispatcher;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.ThreadingMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.CompositeAgent;

/**
 * One lcore of the dataplane, an Agrona {@link Agent} run to completion on its own pinned thread by
 * an {@code AgentRunner} with the process's idle strategy: each pass reads the clock once, then runs
 * its duties, a {@link CompositeAgent} — lcore 0's link watch, the ports it receives (RX burst and
 * hand-off, {@link PortDispatcher#poll}), then its attached clients' rings and its contexts' duty
 * cycles ({@link AttachServer#doWork}) — and counts the pass. Its contexts — one per port, each with
 * an address of its own — are made ({@link #onStart}), run and closed ({@link #onClose}) on this
 * thread only, so each flow (an SRD context, an RC/SRC connection inside one) is touched by one
 * lcore. Lcore 0 also starts EAL, opens the ports (before the others start), and closes the ports
 * once every lcore has stopped. A throw from a duty stops this lcore (Agrona's runner would carry on
 * past it): the process then exits non-zero, saying why.
 */
final class LcoreLoop implements Agent {
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
    /** The pass's time, read once per pass: every duty of the pass sees the same {@code now}. */
    private final CachedNanoClock clock = new CachedNanoClock();
    private final List<Context> contexts = new ArrayList<>();
    private AttachServer server;
    private LcoreCounters lcoreCounters;
    private Eal eal;
    private DataplanePorts ports;
    private Agent duties;

    /** {@code portsOpened} is completed by lcore 0; {@code stopped} counts every lcore down as it stops. */
    LcoreLoop(int index, DataplaneSetup setup, HandoffCounts[] counts, CompletableFuture<DataplanePorts> portsOpened,
            CountDownLatch stopped,
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
    public String roleName() {
        return "srdnic-lcore-" + index;
    }

    /** Pins the thread, starts EAL or joins it, opens this lcore's contexts and attach server; a throw stops the lcore. */
    @Override
    public void onStart() {
        if (setup.cpu(index) >= 0) {
            Affinity.pinCurrentThread(setup.cpu(index));
        }
        if (index == 0) {
            eal = Eal.start(new EalConfig().memoryMb(setup.memoryMb()));
            eal.enterLoop();
            eal.registerThread();
            portsOpened.complete(DataplanePorts.open(setup.ports(), setup.lcores(), setup.firstIp(), counts));
            try {
                MemifSockets.secure(setup.ports(), setup.policy().socketGid());
            } catch (IOException e) {
                throw new UncheckedIOException(e.getMessage(), e);
            }
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
        server.quota(quota).totals(setup.totals());
        server.publishCounters(setup.dir(), index);
        lcoreCounters = new LcoreCounters(setup.dir(), index, counts[index]);
        duties = duties();
        duties.onStart();
        ready.complete(server);
    }

    /** This lcore's duties, in the order of a pass: links (lcore 0), the ports it receives, then its clients and contexts. */
    private Agent duties() {
        List<PortDispatcher> received = new ArrayList<>();
        for (int p = 0; p < ports.count(); p++) {
            if (ports.receiverOf(p) == index && ports.dispatcher(p) != null) {
                received.add(ports.dispatcher(p));
            }
        }
        List<Agent> all = new ArrayList<>();
        if (index == 0) {
            all.add(new LinkWatch(ports.ethPorts(), clock));
        }
        all.add(new ReceiveDuty(received.toArray(PortDispatcher[]::new)));
        all.add(new ClientsDuty(server, clock));
        return new CompositeAgent(all);
    }

    /** One pass: the clock once, every duty, the pass counted. A stop asked for, or a duty's throw, ends the lcore. */
    @Override
    public int doWork() {
        if (quit.getAsBoolean() || eal.quitRequested()) {
            throw new AgentTerminationException(); // no cause: a stop asked for, not a failure
        }
        clock.update(System.nanoTime());
        int work;
        try {
            work = duties.doWork();
        } catch (AgentTerminationException e) {
            throw e;
        } catch (Throwable t) {
            throw new AgentTerminationException(t); // the dataplane's own failure, not a client's: stop, not carry on
        }
        lcoreCounters.onLoop(clock.nanoTime(), work);
        return work;
    }

    /** The runner's error handler: a failure (in {@link #onStart} or a duty) is kept, logged, and wakes whoever waits on this lcore. */
    void onError(Throwable t) {
        Throwable cause = t instanceof AgentTerminationException && t.getCause() != null ? t.getCause() : t;
        if (t instanceof AgentTerminationException && t.getCause() == null) {
            return; // the quit flag: a stop asked for
        }
        failure = cause;
        portsOpened.completeExceptionally(cause); // no-op once opened; else the other lcores stop waiting
        ready.completeExceptionally(cause);
        LOG.log(System.Logger.Level.ERROR, "lcore " + index + " stopped: " + cause.getMessage(), cause);
    }

    /** Drops the clients, closes the contexts and counters; lcore 0 then closes the ports once the others have stopped. */
    @Override
    public void onClose() {
        try {
            if (duties != null) {
                duties.onClose();
            }
            if (server != null) {
                server.close();
            }
            contexts.forEach(Context::close);
            if (lcoreCounters != null) {
                lcoreCounters.close();
            }
        } finally {
            stopped.countDown();
            if (index == 0) {
                closePorts(ports, eal);
            } else if (eal != null) {
                eal.exitLoop();
            }
            LOG.log(System.Logger.Level.INFO, "lcore {0} stopped", String.valueOf(index));
        }
    }

    /** Lcore 0, last: once the others have stopped (bounded), the rings are emptied and the ports closed; then EAL may go. */
    private void closePorts(DataplanePorts ports, Eal eal) {
        try {
            if (!stopped.await(STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "not every lcore stopped within {0} ms: closing the ports anyway",
                        String.valueOf(STOP_WAIT_MILLIS));
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
