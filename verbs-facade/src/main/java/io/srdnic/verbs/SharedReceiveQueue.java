package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;

/**
 * A shared receive queue (ibv_srq): receives posted once and taken, in posting order, by whichever
 * QP created on it a message arrives at (SRD and UD; see
 * {@link QpInitAttributes.Builder#srq}).
 * The receive completion names that QP. Such a QP refuses {@link QueuePair#postRecv}, and its move
 * to ERROR flushes none of these receives: they stay for the other QPs.
 * <p>
 * {@link #postSrqRecv} checks the SGE as {@link QueuePair#postRecv} does and returns 0, or
 * {@link QueuePair#ENOMEM} while max_wr receives wait. {@link #modify} arms the limit: once fewer
 * than that many wait, {@link AsyncEventQueue#SRQ_LIMIT_REACHED} comes through
 * {@link Context#pollAsyncEvent()} with {@code srqn() == srqNum()}, once, and the limit is
 * disarmed until set again. {@link #destroy} is refused while a QP uses the SRQ.
 * <p>
 * Counting for ENOMEM: see {@link EmbeddedSrq}; attached, the dataplane process counts.
 */
public final class SharedReceiveQueue {
    final ProtectionDomain pd;
    final Context context;
    /** The provider's SRQ: the transport's, or the dataplane process's with its receive ring in the shared file. */
    final VerbsProvider.Srq ops;
    private final int maxWr;
    private final int maxSge;
    private final SrqType srqType;
    private volatile boolean destroyed;

    SharedReceiveQueue(ProtectionDomain pd, int maxWr, int maxSge, int limit) {
        this.pd = pd;
        this.context = pd.context;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.srqType = SrqType.BASIC;
        this.ops = context.provider.createSrq(this, maxWr, maxSge, limit);
    }

    /** An XRC SRQ of {@code pd} in {@code xrcd}, completing on {@code cq}: the transport's SRC SRQ, with a number of its choosing. */
    SharedReceiveQueue(ProtectionDomain pd, XrcDomain xrcd, CompletionQueue cq, int maxWr, int maxSge, int limit) {
        this.pd = pd;
        this.context = pd.context;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.srqType = SrqType.XRC;
        this.ops = context.provider.createXrcSrq(this, xrcd, cq, maxWr, maxSge, limit);
    }

    public SrqType srqType() {
        return srqType;
    }

    /**
     * An XRC SRQ's number (ibv_get_srq_num): what a peer's XRC_SEND work requests name it by
     * ({@link SendWr#remoteSrqn}); tell it to them out of band, as QP numbers are.
     */
    public int srqNumber() {
        if (srqType != SrqType.XRC) {
            throw new VerbsException("only an XRC SRQ has an SRQ number for remote senders (ibv_get_srq_num); this one is " + srqType);
        }
        return ops.xrcNumber();
    }

    /** The SRQ's number: SRQ_LIMIT_REACHED events carry it. */
    public int srqNum() {
        return ops.srqNum();
    }

    public int maxWr() {
        return maxWr;
    }

    public int maxSge() {
        return maxSge;
    }

    /** The armed limit, 0 when disarmed (ibv_query_srq's srq_limit). */
    public int limit() {
        checkAlive();
        return ops.limit();
    }

    /** Receives posted and not yet taken by a message (ahead of the dataplane by the posts it has not yet drained). */
    public int receivesPosted() {
        return ops.receivesPosted();
    }

    /** Posts a receive; 0, or ENOMEM when the SRQ is full. The SGE must lie in a region of this SRQ's PD with LOCAL_WRITE. */
    public int postSrqRecv(RecvWr wr) {
        checkAlive();
        Sge s = wr.sge;
        pd.checkReceiveBuffer(s);
        return ops.postRecv(wr);
    }

    /** Arms the limit event ({@code limit} > 0) or disarms it (0), as ibv_modify_srq with IBV_SRQ_LIMIT; 0..max_wr. */
    public void modify(int limit) {
        checkAlive();
        if (limit < 0 || limit > maxWr) {
            throw new VerbsException("srq_limit must be 0 (disarmed) .. max_wr " + maxWr + ", was " + limit);
        }
        ops.modify(limit);
    }

    /** Destroys the SRQ and the receives still posted (no completions: no QP owns them). Refused while a QP uses it. */
    public void destroy() {
        checkAlive();
        ops.destroy();
        destroyed = true;
        pd.srqs.decrementAndGet();
        context.srqDestroyed();
    }

    void checkAlive() {
        if (destroyed) {
            throw new VerbsException("SRQ was destroyed");
        }
    }
}
