package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.QpType;
import io.srdnic.srd.transport.SharedReceiveQueue;
import io.srdnic.srd.transport.SrdQp;
import io.srdnic.srd.transport.SrdTransport;
import java.lang.foreign.MemorySegment;
import io.srdnic.pmd.Affinity;
import io.srdnic.pmd.Eal;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The embedded dataplane of one context: the SRD transport and the duty cycle that drives it.
 * INVOKER: the application's poll and post calls run the cycle. DEDICATED: an agent thread runs it,
 * taking posts from a single-producer ring and control operations from a command queue (the
 * transport is only ever touched by one thread); idle, it spins, then yields, then parks briefly.
 */
final class Dataplane implements AutoCloseable {
    private static final int POST_RING_CAPACITY = 8192;

    /** Made on the thread that runs it (its buffers live in a confined arena); set before anyone else sees the dataplane. */
    SrdTransport transport;
    final ThreadingMode mode;
    private final LongSupplier clock;
    private final SimWorld world;
    private final PostRing posts;
    private final ConcurrentLinkedQueue<FutureTask<?>> commands = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<AsyncEventQueue.AsyncEvent> events = new ConcurrentLinkedQueue<>();
    private final PostRing.Consumer postConsumer = this::consume;
    private final Thread agent;
    private final boolean busySpin;
    private volatile boolean running = true;
    /** DEDICATED: ring posts dropped because the QP changed under them (a race with modify or destroy). */
    private long racedPosts;
    /** DEDICATED: the last exception a cycle threw (the agent goes on: nothing posted may stop it); null if none. */
    private volatile RuntimeException lastFault;
    /** How long a control call waits for the agent before it fails with a clear error rather than for ever. */
    static final long CALL_TIMEOUT_SECONDS = 60;
    /** The counters file (ContextConfig.countersDir), or null; made and written on the thread that runs the cycles. */
    private DataplaneCounters counters;

    Dataplane(Supplier<SrdTransport> factory, ThreadingMode mode, int cpu, boolean busySpin, LongSupplier clock, SimWorld world,
              String name, DataplaneCounters.Opener countersOpener) {
        this.mode = world != null ? ThreadingMode.INVOKER : mode;
        this.busySpin = busySpin;
        this.clock = clock;
        this.world = world;
        this.posts = this.mode == ThreadingMode.DEDICATED ? new PostRing(POST_RING_CAPACITY) : null;
        if (this.mode == ThreadingMode.DEDICATED) {
            CompletableFuture<SrdTransport> made = new CompletableFuture<>();
            agent = new Thread(() -> agentLoop(factory, countersOpener, cpu, made), "srdnic-dataplane-" + name);
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
    java.nio.file.Path countersFile() {
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

    /** Waits a little for the agent (DEDICATED) or makes progress itself (INVOKER). */
    void idle(int spins) {
        if (mode == ThreadingMode.INVOKER) {
            progress();
        } else {
            Backoff.idle(spins, false, 1_000);
        }
    }

    private void agentLoop(Supplier<SrdTransport> factory, DataplaneCounters.Opener countersOpener, int cpu,
                           CompletableFuture<SrdTransport> made) {
        try {
            if (cpu >= 0) {
                Affinity.pinCurrentThread(cpu);
            }
            registerWithDpdk();
            transport = factory.get();
            counters = openCounters(countersOpener);
            made.complete(transport);
        } catch (Throwable t) {
            made.completeExceptionally(t);
            return;
        }
        int idle = 0;
        while (running) {
            int work;
            try {
                work = runCycle(clock.getAsLong());
            } catch (RuntimeException fault) {
                lastFault = fault; // a defect, not the application's to pay for with a dead dataplane: seen by the next call
                work = 1;
            }
            if (work > 0) {
                idle = 0;
            } else {
                Backoff.idle(++idle, busySpin, 10_000);
            }
        }
        transport.close(); // on its own thread: its arena is confined to it
        closeCounters(); // after the close, so that the ACKs it sends are in the final counts
    }

    /** The final counts into the file, which is marked closed; on the thread that ran the cycles, once the transport has closed. */
    private void closeCounters() {
        if (counters != null) {
            counters.close(clock.getAsLong());
        }
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
            return task.get(CALL_TIMEOUT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
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

    /** Posts a send; INVOKER straight into the transport, DEDICATED through the ring. Returns a POST_* code. */
    int postSend(SrdQp qp, int ah, int destQpn, int qkey, int remoteSrqn, long wrId, int opcode, MemorySegment buffer, long offset,
                 int length, int imm, long remoteAddress, int rkey, boolean signaled) {
        if (posts == null) {
            return send(qp, ah, destQpn, qkey, remoteSrqn, wrId, opcode, buffer, offset, length, imm, remoteAddress, rkey, signaled);
        }
        if (managedElsewhere(qp)) {
            return call(() -> send(qp, ah, destQpn, qkey, remoteSrqn, wrId, opcode, buffer, offset, length, imm, remoteAddress, rkey,
                signaled));
        }
        int i = claimSend(qp, ah, destQpn, qkey, wrId, opcode, buffer, offset, length, imm, remoteAddress, rkey, signaled);
        if (i < 0) {
            return SrdTransport.POST_SQ_FULL;
        }
        posts.remoteSrqn[i] = remoteSrqn;
        posts.publish();
        return SrdTransport.POST_OK;
    }

    /** Into the transport: an SRC QP's post names the remote SRQ ({@code remoteSrqn}), the others' their destination. */
    private int send(SrdQp qp, int ah, int destQpn, int qkey, int remoteSrqn, long wrId, int opcode, MemorySegment buffer, long offset,
                     int length, int imm, long remoteAddress, int rkey, boolean signaled) {
        return qp.type() == QpType.SRC
            ? transport.postSrc(qp, remoteSrqn, wrId, opcode, buffer, offset, length, imm, remoteAddress, rkey, signaled)
            : transport.postSend(qp, ah, destQpn, qkey, wrId, opcode, buffer, offset, length, imm, remoteAddress, rkey, signaled);
    }

    private int atomic(SrdQp qp, int remoteSrqn, long wrId, int opcode, MemorySegment buffer, long offset, long remoteAddress, int rkey,
                       long compareAdd, long swap, boolean signaled) {
        return qp.type() == QpType.SRC
            ? transport.postSrcAtomic(qp, remoteSrqn, wrId, opcode, buffer, offset, remoteAddress, rkey, compareAdd, swap, signaled)
            : transport.postAtomic(qp, wrId, opcode, buffer, offset, remoteAddress, rkey, compareAdd, swap, signaled);
    }

    /** DEDICATED: a ring slot filled with a SEND record, not yet published (an atomic adds its operands); -1 when the ring is full. */
    private int claimSend(SrdQp qp, int ah, int destQpn, int qkey, long wrId, int opcode, MemorySegment buffer, long offset, int length,
                          int imm, long remoteAddress, int rkey, boolean signaled) {
        int i = posts.claim();
        if (i < 0) {
            return -1;
        }
        posts.op[i] = PostRing.SEND;
        posts.qp[i] = qp;
        posts.wrId[i] = wrId;
        posts.ah[i] = ah;
        posts.destQpn[i] = destQpn;
        posts.qkey[i] = qkey;
        posts.buffer[i] = buffer;
        posts.offset[i] = offset;
        posts.length[i] = length;
        posts.opcode[i] = opcode;
        posts.imm[i] = imm;
        posts.remoteAddress[i] = remoteAddress;
        posts.rkey[i] = rkey;
        posts.signaled[i] = signaled;
        return i;
    }

    /** Posts an RC atomic; INVOKER straight into the transport, DEDICATED through the ring (a SEND record with its operands). */
    int postAtomic(SrdQp qp, int remoteSrqn, long wrId, int opcode, MemorySegment buffer, long offset, long remoteAddress, int rkey,
                   long compareAdd, long swap, boolean signaled) {
        if (posts == null) {
            return atomic(qp, remoteSrqn, wrId, opcode, buffer, offset, remoteAddress, rkey, compareAdd, swap, signaled);
        }
        int i = claimSend(qp, 0, 0, 0, wrId, opcode, buffer, offset, SendOpcode.ATOMIC_SIZE, 0, remoteAddress, rkey, signaled);
        if (i < 0) {
            return SrdTransport.POST_SQ_FULL;
        }
        posts.compareAdd[i] = compareAdd;
        posts.swap[i] = swap;
        posts.remoteSrqn[i] = remoteSrqn;
        posts.publish();
        return SrdTransport.POST_OK;
    }

    /** Posts a receive; false when there is no room. */
    boolean postRecv(SrdQp qp, long wrId, MemorySegment buffer, long offset, int length, int lkey) {
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
    private boolean publishReceive(int op, SrdQp qp, SharedReceiveQueue srq, long wrId, MemorySegment buffer, long offset, int length,
                                   int lkey) {
        int i = posts.claim();
        if (i < 0) {
            return false;
        }
        posts.op[i] = op;
        posts.qp[i] = qp;
        posts.srq[i] = srq;
        posts.wrId[i] = wrId;
        posts.buffer[i] = buffer;
        posts.offset[i] = offset;
        posts.length[i] = length;
        posts.rkey[i] = lkey; // a receive record's key field holds the receive's lkey
        posts.publish();
        return true;
    }

    /** Completes a send that failed the application-side checks, on the thread that owns the CQ. */
    void completeLocally(SrdQp qp, long wrId, int status, int length) {
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
        posts.op[i] = PostRing.LOCAL_ERROR;
        posts.qp[i] = qp;
        posts.wrId[i] = wrId;
        posts.status[i] = status;
        posts.length[i] = length;
        posts.buffer[i] = null;
        posts.publish();
    }

    /**
     * The management QP is posted to by the connection manager, from whichever application thread
     * polls its event channel: its posts go in as commands (any thread may queue one, at the cost of
     * a task each on this control path), never through the ring, which has one producer — the
     * thread that posts to the application's own QPs.
     */
    private static boolean managedElsewhere(SrdQp qp) {
        return qp.qpn() == SrdTransport.MANAGEMENT_QPN;
    }

    private void consume(PostRing ring, int i) {
        switch (ring.op[i]) {
            case PostRing.SEND -> {
                int rc = SendOpcode.isAtomic(ring.opcode[i])
                    ? atomic(ring.qp[i], ring.remoteSrqn[i], ring.wrId[i], ring.opcode[i], ring.buffer[i], ring.offset[i],
                        ring.remoteAddress[i], ring.rkey[i], ring.compareAdd[i], ring.swap[i], ring.signaled[i])
                    : send(ring.qp[i], ring.ah[i], ring.destQpn[i], ring.qkey[i], ring.remoteSrqn[i], ring.wrId[i], ring.opcode[i],
                        ring.buffer[i], ring.offset[i], ring.length[i], ring.imm[i], ring.remoteAddress[i], ring.rkey[i], ring.signaled[i]);
                if (rc != SrdTransport.POST_OK) {
                    // Checked on the application side already; only a race with destroy/modify ends here.
                    transport.completeLocally(ring.qp[i], ring.wrId[i], WcStatus.WR_FLUSH_ERROR, ring.length[i]);
                    ring.qp[i].onPostRefused(ring.buffer[i], ring.offset[i]);
                }
            }
            case PostRing.RECV -> {
                // A destroy runs before the posts drained in its cycle: a receive posted just before it goes with the QP
                // (never an exception on this thread: nothing an application posts may stop it).
                try {
                    if (!ring.qp[i].isDestroyed()) {
                        ring.qp[i].postReceive(ring.wrId[i], ring.buffer[i], ring.offset[i], ring.length[i], ring.rkey[i]);
                    }
                } catch (IllegalStateException raced) {
                    racedPosts++; // a modify to RESET got in between the poster's check and this: dropped, as RESET drops receives
                }
            }
            case PostRing.SRQ_RECV -> {
                // A destroy runs before the posts drained in its cycle: a receive posted just before it goes with the SRQ.
                if (!ring.srq[i].isDestroyed()) {
                    ring.srq[i].postReceive(ring.wrId[i], ring.buffer[i], ring.offset[i], ring.length[i], ring.rkey[i]);
                }
            }
            default -> transport.completeLocally(ring.qp[i], ring.wrId[i], ring.status[i], ring.length[i]);
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
