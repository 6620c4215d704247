package io.srdnic.srd.transport.qp;

import io.srdnic.srd.api.CompletionQueue;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A shared receive queue (ibv_srq): one ring of posted receives that several QPs of a transport
 * (SRD and UD; RC when it comes) take from, in posting order, whichever of them a message arrives
 * on; its receive completion names that QP, not the SRQ. A QP created on an SRQ has no receive
 * queue of its own: posting to it is refused, and its move to ERROR or RESET flushes nothing, for
 * the receives are the SRQ's and stay there for the other QPs. An SRQ is destroyed only once no QP
 * uses it, as ibv_destroy_srq refuses too.
 * <p>
 * The limit (ibv_modify_srq with IBV_SRQ_LIMIT): a limit above 0 arms the SRQ; the first receive
 * taken that leaves fewer than that many posted raises SRQ_LIMIT_REACHED once and disarms it (the
 * limit reads 0 again), so the application, told it is running low, posts more and re-arms it.
 * A limit given at creation arms it too (rdma-core leaves that to the provider; rxe arms it so).
 * An SRQ armed while already below its limit raises the event at the next receive taken.
 * <p>
 * With seed 001's SRC attributes (the device's {@code SrqAttributes}: an SRC domain, an SRC SRQ number and an
 * SRC CQ) no QP is created on it: SRC QPs of its domain deliver into it the messages that name its
 * number, complete them on its CQ and check their RDMA against its protection domain.
 * <p>
 * Owned by the transport's thread, like the QPs; only {@link #receivesTaken()} may be read from
 * another (a posting thread counting what it may still post).
 */
public final class SharedReceiveQueue {
    /** Scatter elements per receive: the transport delivers a message into one buffer. */
    public static final int MAX_SGE = 1;

    private static final VarHandle TAKEN;

    static {
        try {
            TAKEN = MethodHandles.lookup().findVarHandle(SharedReceiveQueue.class, "taken", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The device: told of the limit event and of an SRC SRQ's end; a QP of another device may not use this SRQ. */
    private final SrqEvents device;
    private final int srqn;
    private final int maxWr;
    public final ReceiveQueue receives;
    /** The protection domain: SRC messages' RDMA and atomics are checked against it. */
    public final int pd;
    /** SRC: the domain, the number packets name it by, and the CQ its receives complete on; null, 0, null without. */
    public final SrcMembership srcDomain;
    public final int srcSrqNumber;
    public final CompletionQueue srcCq;
    private int limit;
    private int qpsUsing;
    private boolean destroyed;
    /** Receives taken by messages; written by the owner thread only, published with a release store. */
    private long taken;

    /** An SRQ without SRC attributes. */
    public SharedReceiveQueue(SrqEvents device, int srqn, int maxWr, int limit, int pd) {
        this(device, srqn, maxWr, limit, pd, null, 0, null);
    }

    /**
     * {@code srcDomain}, {@code srcSrqNumber}, {@code srcCq}: the three SRC attributes, all given
     * (checked by the device's {@code SrqAttributes.checkSrc}) or null, 0, null.
     */
    public SharedReceiveQueue(SrqEvents device, int srqn, int maxWr, int limit, int pd, SrcMembership srcDomain, int srcSrqNumber,
                              CompletionQueue srcCq) {
        if (maxWr < 1) {
            throw new IllegalArgumentException("an SRQ holds at least one receive, asked max_wr " + maxWr);
        }
        checkLimit(limit, maxWr);
        this.device = device;
        this.srqn = srqn;
        this.maxWr = maxWr;
        this.limit = limit;
        this.receives = new ReceiveQueue(maxWr, this);
        this.pd = pd;
        this.srcDomain = srcDomain;
        this.srcSrqNumber = srcSrqNumber;
        this.srcCq = srcCq;
    }

    public int pd() {
        return pd;
    }

    /** The SRC domain, or null for an SRQ without SRC attributes. */
    public SrcMembership srcDomain() {
        return srcDomain;
    }

    /** The number SRC packets name this SRQ by, or 0 for an SRQ without SRC attributes. */
    public int srcSrqNumber() {
        return srcSrqNumber;
    }

    /** The CQ where SRC messages delivered here complete, or null for an SRQ without SRC attributes. */
    public CompletionQueue srcCq() {
        return srcCq;
    }

    /** The SRQ's number, which SRQ_LIMIT_REACHED events carry. */
    public int srqn() {
        return srqn;
    }

    public int maxWr() {
        return maxWr;
    }

    public int maxSge() {
        return MAX_SGE;
    }

    /** The armed limit, or 0 when disarmed (never armed, or its event has been raised since). */
    public int limit() {
        return limit;
    }

    /** Posts a receive; false if the SRQ is full. Throws if it was destroyed or the range lies outside {@code buffer}. */
    public boolean postReceive(long wrId, MemorySegment buffer, long offset, int length) {
        return postReceive(wrId, buffer, offset, length, 0);
    }

    /**
     * As {@link TransportQp#postReceive(long, MemorySegment, long, int, int)}: the receive's memory
     * region is checked when a message takes it.
     */
    public boolean postReceive(long wrId, MemorySegment buffer, long offset, int length, int lkey) {
        if (destroyed) {
            throw new IllegalStateException("SRQ " + srqn + " was destroyed");
        }
        ReceiveQueue.checkInside(buffer, offset, length);
        return receives.offer(wrId, buffer, offset, length, lkey);
    }

    /** Arms the limit event ({@code newLimit} > 0) or disarms it (0); as ibv_modify_srq, 0..max_wr. */
    public void modify(int newLimit) {
        if (destroyed) {
            throw new IllegalStateException("SRQ " + srqn + " was destroyed");
        }
        checkLimit(newLimit, maxWr);
        limit = newLimit;
    }

    /** Receives posted and not yet taken. */
    public int receivesPosted() {
        return receives.size();
    }

    /** Receives taken by messages since creation. Any thread may read it: each one taken is published with a release store. */
    public long receivesTaken() {
        return (long) TAKEN.getAcquire(this);
    }

    /** QPs created on this SRQ and not yet destroyed. */
    public int qpsUsing() {
        return qpsUsing;
    }

    public boolean isDestroyed() {
        return destroyed;
    }

    /**
     * Destroys the SRQ; its posted receives go without completions (no QP owns them). Refused while a
     * QP uses it. An SRC SRQ's number names nothing from now on: an SRC message naming it is refused.
     */
    public void destroy() {
        if (qpsUsing > 0) {
            throw new IllegalStateException("SRQ " + srqn + " is still used by " + qpsUsing + " QP(s): destroy them first");
        }
        if (!destroyed && srcDomain != null) {
            device.srcSrqDestroyed(this);
            srcDomain.detachSrq();
        }
        destroyed = true;
    }

    /** Throws unless a QP of {@code owner} may be created on this SRQ: not destroyed, and of the same device. */
    public void checkUsableBy(SrqEvents owner) {
        if (owner != device) {
            throw new IllegalArgumentException("SRQ " + srqn + " belongs to another transport (device) than the QP");
        }
        if (destroyed) {
            throw new IllegalStateException("SRQ " + srqn + " was destroyed: a QP cannot take its receives from it");
        }
        if (srcDomain != null) {
            throw new IllegalArgumentException("SRQ " + srqn + " has SRC attributes: no QP is created on it; SRC QPs of its domain reach it"
                + " by its SRC SRQ number " + srcSrqNumber);
        }
    }

    /** A QP was created on this SRQ (after {@link #checkUsableBy}). */
    public void attach() {
        qpsUsing++;
    }

    /** A QP using this SRQ was destroyed. */
    public void detach() {
        qpsUsing--;
    }

    /** Told by the ring after each receive taken: counts it and raises the limit event when armed and crossed. */
    void receiveTaken() {
        TAKEN.setRelease(this, taken + 1);
        if (limit > 0 && receives.size() < limit) {
            limit = 0; // raised once; the application re-arms it
            device.limitReached(srqn);
        }
    }

    private static void checkLimit(int limit, int maxWr) {
        if (limit < 0 || limit > maxWr) {
            throw new IllegalArgumentException("an SRQ limit is 0 (disarmed) .. max_wr " + maxWr + ", was " + limit);
        }
    }
}
