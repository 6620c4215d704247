package io.srdnic.verbs;

import io.srdnic.pmd.Affinity;
import io.srdnic.pmd.Eal;
import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;

/**
 * The driver of one context in the application's process: the SRD transport and the duty cycle that
 * drives it (not "the dataplane", which is the process {@code srdnic dataplane} runs; an attached
 * context has no driver of its own).
 * INVOKER: the application's poll and post calls run the cycle. DEDICATED: an agent thread runs it,
 * taking posts from a single-producer ring and control operations from a command queue (the
 * transport is only ever touched by one thread); it is an Agrona agent ({@link Cycles}) whose
 * runner, idle, spins, then yields, then parks briefly (BackoffIdleStrategy; busySpin: never parks).
 */
final class ContextDriver implements AutoCloseable {
    private static final int POST_RING_CAPACITY = 8192;
    private static final System.Logger LOG = System.getLogger(ContextDriver.class.getName());
    /** DEDICATED, idle: the agent's park (a park costs tens of µs of timer slack, so a dataplane that must answer fast spins: busySpin). */
    private static final long IDLE_PARK_NANOS = 10_000;
    /**
     * A thread waiting on another one (the agent, or the dataplane process) spins, yields, then parks
     * 1 µs at a time; one strategy per waiting thread, so a wait allocates nothing.
     */
    private static final ThreadLocal<BackoffIdleStrategy> WAITER = ThreadLocal.withInitial(() -> new BackoffIdleStrategy(100, 100, 1_000,
        1_000));

    /** Made on the thread that runs it (its buffers live in a confined arena); set before anyone else sees the dataplane. */
    TransportDevice transport;
    final ThreadingMode mode;
    private final LongSupplier clock;
    private final SimWorld world;
    private final PostRing posts;
    /** INVOKER's post slot, and DEDICATED's for the management QP's posts (run on the agent thread): one post at a time. */
    private final PostRing direct = new PostRing(2);
    private final ConcurrentLinkedQueue<FutureTask<?>> commands = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<AsyncEventQueue.AsyncEvent> events = new ConcurrentLinkedQueue<>();
    private final PostRing.Consumer postConsumer = this::consume;
    private final Thread agent;
    private final boolean busySpin;
    private volatile boolean running = true;
    /** DEDICATED: ring receives dropped because a modify to RESET raced their post; in the counters file as recv_posts_raced_reset. */
    private long racedPosts;
    /** DEDICATED: the last exception a cycle threw (the agent goes on: nothing posted may stop it); null if none. */
    private volatile RuntimeException lastFault;
    /** How long a control call waits for the agent before it fails with a clear error rather than for ever. */
    static final long CALL_TIMEOUT_SECONDS = 60;
    /** The counters file (ContextConfig.countersDir), or null; made and written on the thread that runs the cycles. */
    private DataplaneCounters counters;

    ContextDriver(Supplier<TransportDevice> factory, ThreadingMode mode, int cpu, boolean busySpin, LongSupplier clock, SimWorld world,
              String name, DataplaneCounters.Opener countersOpener) {
        this.mode = world != null ? ThreadingMode.INVOKER : mode;
        this.busySpin = busySpin;
        this.clock = clock;
        this.world = world;
        this.posts = this.mode == ThreadingMode.DEDICATED ? new PostRing(POST_RING_CAPACITY) : null;
        if (this.mode == ThreadingMode.DEDICATED) {
            CompletableFuture<TransportDevice> made = new CompletableFuture<>();
            AgentRunner runner = new AgentRunner(busySpin ? new BusySpinIdleStrategy() : new BackoffIdleStrategy(100, 100, IDLE_PARK_NANOS,
                IDLE_PARK_NANOS), t -> onAgentError(t, made), null, new Cycles(factory, countersOpener, cpu, made));
            agent = new Thread(runner, "srdnic-driver-" + name);
            agent.setDaemon(true);
            agent.start();
            transport = made.join();
        } else {
            agent = null;
            registerWithDpdk();
            transport = factory.get();
            counters = openCounters(countersOpener);
        }
        if (world != null) {
            world.join(this);
        }
    }

    /** The counters file, once the transport exists; a file that cannot be made fails the open, its transport closed. */
    private DataplaneCounters openCounters(DataplaneCounters.Opener opener) {
        try {
            return opener.open(transport, posts, clock.getAsLong());
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
    }

    /** Where this dataplane's counters file is, or null. */
    Path countersFile() {
        return counters == null ? null : counters.file();
    }

    /** A thread that bursts on DPDK ports gets an lcore id, so mempool caches work for it. */
    private static void registerWithDpdk() {
        if (Eal.isRunning()) {
            Eal.current().registerThread();
        }
    }

    /** One duty cycle at {@code now}: commands, posts, the transport, events. Returns the work done. */
    int runCycle(long now) {
        int work = takeCommandsAndPosts() + transport.doWork(now);
        forwardEvents();
        if (counters != null) {
            counters.onCycle(now, work);
        }
        return work;
    }

    /** DEDICATED: commands and posts come from other threads (INVOKER runs them in place). */
    private int takeCommandsAndPosts() {
        if (posts == null) {
            return 0;
        }
        int work = 0;
        FutureTask<?> task;
        while ((task = commands.poll()) != null) {
            task.run();
            work++;
        }
        return work + posts.drain(postConsumer);
    }

    private void forwardEvents() {
        AsyncEventQueue.AsyncEvent event;
        while ((event = transport.events().poll()) != null) {
            events.add(event);
        }
    }

    /**
     * INVOKER, when the application polls a CQ that still holds completions: no whole cycle, but
     * what it has posted since leaves now rather than after those completions have been taken.
     */
    void transmitPosted() {
        if (mode == ThreadingMode.INVOKER && world == null && transport.hasPostedWork()) {
            transport.transmitPosted(clock.getAsLong());
        }
    }

    /** INVOKER: the caller's thread makes progress (the whole world, on a simulator). DEDICATED: nothing to do. */
    int progress() {
        if (mode == ThreadingMode.DEDICATED) {
            return 0;
        }
        return world != null ? world.step() : runCycle(clock.getAsLong());
    }

    /**
     * INVOKER on a device of this machine: one cycle at the caller's {@code now}, read from the
     * device's clock (the dataplane's lcore reads it once a pass), not read again here. On a
     * simulated network (its clock is virtual) or DEDICATED: as {@link #progress}.
     */
    int progressAt(long now) {
        return mode == ThreadingMode.INVOKER && world == null ? runCycle(now) : progress();
    }

    /** Waits a little for the agent (DEDICATED) or makes progress itself (INVOKER). */
    void idle(int spins) {
        if (mode == ThreadingMode.INVOKER) {
            progress();
        } else {
            await(spins);
        }
    }

    /** One wait of a thread waiting on another, the {@code spins}-th in a row (0 starts a new wait). */
    static void await(int spins) {
        BackoffIdleStrategy idle = WAITER.get();
        if (spins == 0) {
            idle.reset();
        }
        idle.idle();
    }

    /** DEDICATED: the agent's duty cycles, run by an Agrona AgentRunner on the dataplane's own thread until {@link #close}. */
    private final class Cycles implements Agent {
        private final Supplier<TransportDevice> factory;
        private final DataplaneCounters.Opener countersOpener;
        private final int cpu;
        private final CompletableFuture<TransportDevice> made;

        Cycles(Supplier<TransportDevice> factory, DataplaneCounters.Opener countersOpener, int cpu,
                CompletableFuture<TransportDevice> made) {
            this.factory = factory;
            this.countersOpener = countersOpener;
            this.cpu = cpu;
            this.made = made;
        }

        @Override
        public String roleName() {
            return "srdnic-driver";
        }

        /** The transport is made on the thread that runs it (its buffers live in a confined arena). */
        @Override
        public void onStart() {
            if (cpu >= 0) {
                Affinity.pinCurrentThread(cpu);
            }
            registerWithDpdk();
            transport = factory.get();
            counters = openCounters(countersOpener);
            made.complete(transport);
        }

        @Override
        public int doWork() {
            if (!running) {
                throw new AgentTerminationException(); // close(): a stop asked for
            }
            try {
                return runCycle(clock.getAsLong());
            } catch (RuntimeException fault) {
                lastFault = fault; // a defect, not the application's to pay for with a dead dataplane: seen by the next call
                return 1;
            } catch (Error e) {
                throw new AgentTerminationException(e); // the JVM's own trouble (out of memory…): not run on
            }
        }

        @Override
        public void onClose() {
            if (transport != null && made.isDone() && !made.isCompletedExceptionally()) {
                transport.close(); // on its own thread: its arena is confined to it
                closeCounters(); // after the close, so that the ACKs it sends are in the final counts
            }
        }
    }

    /** The runner's error handler: a start that failed fails the open; a cycle that threw stopped the agent, logged. */
    private static void onAgentError(Throwable t, CompletableFuture<TransportDevice> made) {
        if (t instanceof AgentTerminationException && t.getCause() == null) {
            return;
        }
        if (!made.completeExceptionally(t)) {
            Throwable cause = t.getCause() != null ? t.getCause() : t;
            LOG.log(System.Logger.Level.ERROR, "context driver stopped: " + cause, cause);
        }
    }

    /** The final counts into the file, which is marked closed; on the thread that ran the cycles, once the transport has closed. */
    private void closeCounters() {
        if (counters != null) {
            counters.close(clock.getAsLong());
        }
    }

    /** DEDICATED: the last exception a cycle threw and the agent survived (a defect: nothing posted may cause one), or null. */
    RuntimeException lastFault() {
        return lastFault;
    }

    /** Runs a control operation on the dataplane's thread and returns its result (or throws its exception). */
    <T> T call(Callable<T> operation) {
        if (mode == ThreadingMode.INVOKER) {
            try {
                return operation.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new VerbsException(e.getMessage());
            }
        }
        FutureTask<T> task = new FutureTask<>(operation);
        commands.add(task);
        LockSupport.unpark(agent);
        try {
            return task.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            task.cancel(false);
            RuntimeException fault = lastFault;
            throw new VerbsException("the dataplane thread did not answer within " + CALL_TIMEOUT_SECONDS + " s"
                + (agent.isAlive() ? "" : " (it is dead)") + (fault == null ? "" : "; its last fault: " + fault));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new VerbsException(e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("interrupted waiting for the dataplane");
        }
    }

    /**
     * DEDICATED, from a control operation on the dataplane thread: hands the transport the posts
     * already in the ring, which a cycle runs after its commands, so that an operation ordered after
     * them (a QP modify) also takes effect after them. INVOKER posts go straight in: nothing to do.
     */
    void runPostedFirst() {
        if (posts != null) {
            posts.drain(postConsumer);
        }
    }

    /**
     * Posts {@code wr} (a send, an RDMA operation or an RC atomic) from {@code buffer} at {@code offset}
     * ({@code length} bytes: the SGE, or the staging slot the SGEs were gathered into); {@code ah}: its
     * address handle, 0 for a connected QP. The work request is copied once, into a post slot (the
     * ring's in DEDICATED mode, this thread's own in INVOKER), and the transport takes it from there.
     * {@code gathers}: an RC or SRC SEND or WRITE the transport gathers from {@code wr}'s SGEs ({@code buffer}: the first).
     * Returns a POST_* code.
     */
    int postSend(DeviceQp qp, SendWr wr, int ah, MemorySegment buffer, long offset, int length, boolean signaled, boolean gathers) {
        if (posts == null) {
            return submitDirect(qp, wr, ah, buffer, offset, length, signaled, gathers);
        }
        if (managedElsewhere(qp)) {
            // call waits: wr is read before it returns
            return call(() -> submitDirect(qp, wr, ah, buffer, offset, length, signaled, gathers));
        }
        int i = posts.claim();
        if (i < 0) {
            return TransportDevice.POST_SQ_FULL;
        }
        posts.putSend(i, qp, wr, ah, buffer, offset, length, signaled, gathers);
        posts.publish();
        return TransportDevice.POST_OK;
    }

    /** On the thread that owns the transport: {@code wr} into the one-slot ring, and at once to the transport. */
    private int submitDirect(DeviceQp qp, SendWr wr, int ah, MemorySegment buffer, long offset, int length, boolean signaled,
                             boolean gathers) {
        direct.putSend(0, qp, wr, ah, buffer, offset, length, signaled, gathers);
        try {
            return submit(direct, 0);
        } finally {
            direct.clear(0);
        }
    }

    /**
     * The transport's post of the SEND slot {@code i} of {@code ring}: the one place a facade work
     * request meets the transport. The slot is a {@link WorkRequest} (filled once by the poster,
     * made once with the ring: nothing copied or allocated here), handed as it is to
     * {@link TransportDevice#post}; the ring clears it once the slot is consumed.
     */
    private int submit(PostRing ring, int i) {
        return transport.post(ring.qp[i], ring.request[i]);
    }

    /** Posts a receive; false when there is no room. */
    boolean postRecv(DeviceQp qp, long wrId, MemorySegment buffer, long offset, int length, int lkey) {
        if (posts == null) {
            return qp.postReceive(wrId, buffer, offset, length, lkey);
        }
        if (managedElsewhere(qp)) {
            return call(() -> qp.postReceive(wrId, buffer, offset, length, lkey));
        }
        return publishReceive(PostRing.RECV, qp, null, wrId, buffer, offset, length, lkey);
    }

    /** Posts a receive to a shared receive queue; false when there is no room. */
    boolean postSrqRecv(SharedReceiveQueue srq, long wrId, MemorySegment buffer, long offset, int length, int lkey) {
        if (posts == null) {
            return srq.postReceive(wrId, buffer, offset, length, lkey);
        }
        return publishReceive(PostRing.SRQ_RECV, null, srq, wrId, buffer, offset, length, lkey);
    }

    /** DEDICATED: hands a receive (for {@code qp}, or for {@code srq}) to the agent through the ring; false when it is full. */
    private boolean publishReceive(int op, DeviceQp qp, SharedReceiveQueue srq, long wrId, MemorySegment buffer, long offset, int length,
                                   int lkey) {
        int i = posts.claim();
        if (i < 0) {
            return false;
        }
        posts.putOther(i, op, qp, srq, wrId, buffer, offset, length, lkey, 0); // a receive record's key field holds its lkey
        posts.publish();
        return true;
    }

    /** Completes a send that failed the application-side checks, on the thread that owns the CQ. */
    void completeLocally(DeviceQp qp, long wrId, int status, int length) {
        if (posts == null) {
            transport.completeLocally(qp, wrId, status, length);
            return;
        }
        if (managedElsewhere(qp)) {
            call(() -> {
                transport.completeLocally(qp, wrId, status, length);
                return null;
            });
            return;
        }
        int i;
        while ((i = posts.claim()) < 0) {
            Thread.onSpinWait();
        }
        posts.putOther(i, PostRing.LOCAL_ERROR, qp, null, wrId, null, 0, length, 0, status);
        posts.publish();
    }

    /**
     * The management QP is posted to by the connection manager, from whichever application thread
     * polls its event channel: its posts go in as commands (any thread may queue one, at the cost of
     * a task each on this control path), never through the ring, which has one producer — the
     * thread that posts to the application's own QPs.
     */
    private static boolean managedElsewhere(DeviceQp qp) {
        return qp.qpn() == TransportDevice.MANAGEMENT_QPN;
    }

    private void consume(PostRing ring, int i) {
        WorkRequest r = ring.request[i];
        switch (ring.op[i]) {
            case PostRing.SEND -> {
                if (submit(ring, i) != TransportDevice.POST_OK) {
                    // Checked on the application side already; only a race with destroy/modify ends here.
                    transport.completeLocally(ring.qp[i], r.wrId, WcStatus.WR_FLUSH_ERROR, r.length);
                    ring.qp[i].onPostRefused(r.buffer, r.offset);
                }
            }
            case PostRing.RECV -> {
                // A destroy runs before the posts drained in its cycle: a receive posted just before it goes with the QP
                // (never an exception on this thread: nothing an application posts may stop it).
                try {
                    if (!ring.qp[i].isDestroyed()) {
                        ring.qp[i].postReceive(r.wrId, r.buffer, r.offset, r.length, r.rkey);
                    }
                } catch (IllegalStateException raced) {
                    racedPosts++; // a modify to RESET got in between the poster's check and this: dropped, as RESET drops receives
                    if (counters != null) {
                        counters.racedPosts(racedPosts); // rare: written at once, not at the next export
                    }
                }
            }
            case PostRing.SRQ_RECV -> {
                // A destroy runs before the posts drained in its cycle: a receive posted just before it goes with the SRQ.
                if (!ring.srq[i].isDestroyed()) {
                    ring.srq[i].postReceive(r.wrId, r.buffer, r.offset, r.length, r.rkey);
                }
            }
            default -> transport.completeLocally(ring.qp[i], r.wrId, ring.status[i], r.length);
        }
    }

    AsyncEventQueue.AsyncEvent pollEvent() {
        return events.poll();
    }

    @Override
    public void close() {
        running = false;
        if (agent != null) {
            LockSupport.unpark(agent);
            try {
                agent.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (world != null) {
            world.leave(this);
        }
        if (agent == null) {
            transport.close();
            closeCounters();
        }
    }
}
