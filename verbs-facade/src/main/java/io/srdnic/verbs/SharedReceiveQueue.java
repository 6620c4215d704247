package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A shared receive queue (ibv_srq): receives posted once and taken, in posting order, by whichever
 * QP created on it a message arrives at (SRD and UD; see
 * {@link ProtectionDomain#createQueuePair(io.srdnic.srd.api.QpType, CompletionQueue, CompletionQueue, SharedReceiveQueue, int, int, int)}).
 * The receive completion names that QP. Such a QP refuses {@link QueuePair#postRecv}, and its move
 * to ERROR flushes none of these receives: they stay for the other QPs.
 * <p>
 * {@link #postSrqRecv} checks the SGE as {@link QueuePair#postRecv} does and returns 0, or
 * {@link QueuePair#ENOMEM} while max_wr receives wait. {@link #modify} arms the limit: once fewer
 * than that many wait, {@link AsyncEventQueue#SRQ_LIMIT_REACHED} comes through
 * {@link Context#pollAsyncEvent()} with {@code srqn() == srqNum()}, once, and the limit is
 * disarmed until set again. {@link #destroy} is refused while a QP uses the SRQ.
 * <p>
 * Counting for ENOMEM: this side counts the receives posted, the dataplane those taken (published
 * as each is taken), so the count is exact in either threading mode and stays so when a QP that
 * took receives is destroyed before its completions are polled.
 */
public final class SharedReceiveQueue {
    final ProtectionDomain pd;
    final Context context;
    /** The transport's SRQ; null attached. */
    final io.srdnic.srd.transport.SharedReceiveQueue srq;
    /** Attached: the SRQ's receive ring in the shared file (posted as a QP's receive ring is), its number and XRC number; else null. */
    private final AttachedQp attached;
    private final int attachedSrqn;
    private final int attachedXrcNumber;
    private final int maxWr;
    private final int maxSge;
    private final SrqType srqType;
    private final AtomicLong posted = new AtomicLong();
    private volatile boolean destroyed;

    SharedReceiveQueue(ProtectionDomain pd, int maxWr, int maxSge, int limit) {
        this.pd = pd;
        this.context = pd.context;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.srqType = SrqType.BASIC;
        if (context.session != null) {
            this.srq = null;
            io.srdnic.verbs.attach.control.HandleReply r = context.session.request(
                new io.srdnic.verbs.attach.control.CreateSrqRequest(pd.id, 0, 0, maxWr, maxSge, limit));
            this.attached = ring(r);
            this.attachedSrqn = r.handle();
            this.attachedXrcNumber = 0;
            return;
        }
        this.attached = null;
        this.attachedSrqn = 0;
        this.attachedXrcNumber = 0;
        this.srq = context.dataplane.call(() -> context.dataplane.transport.createSrq(maxWr, limit));
    }

    /** Attached: the SRQ's receive ring the dataplane answered with. */
    private AttachedQp ring(io.srdnic.verbs.attach.control.HandleReply r) {
        AttachedSession s = context.session;
        return new AttachedQp(s, r.handle(), null, new io.srdnic.verbs.attach.ShmRing(s.rings.asSlice(r.firstRing(),
            io.srdnic.verbs.attach.ShmRing.bytes(r.firstCapacity(), io.srdnic.verbs.attach.RecvRecord.BYTES)), r.firstCapacity(),
            io.srdnic.verbs.attach.RecvRecord.BYTES));
    }

    /** An XRC SRQ of {@code pd} in {@code xrcd}, completing on {@code cq}: the transport's SRC SRQ, with a number of its choosing. */
    SharedReceiveQueue(ProtectionDomain pd, XrcDomain xrcd, CompletionQueue cq, int maxWr, int maxSge, int limit) {
        this.pd = pd;
        this.context = pd.context;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.srqType = SrqType.XRC;
        if (context.session != null) {
            this.srq = null;
            io.srdnic.verbs.attach.control.HandleReply r = context.session.request(
                new io.srdnic.verbs.attach.control.CreateSrqRequest(pd.id, xrcd.handle, cq.handle, maxWr, maxSge, limit));
            this.attached = ring(r);
            this.attachedSrqn = r.handle();
            this.attachedXrcNumber = r.state();
            return;
        }
        this.attached = null;
        this.attachedSrqn = 0;
        this.attachedXrcNumber = 0;
        io.srdnic.srd.transport.SrdTransport t = context.dataplane.transport;
        this.srq = context.dataplane.call(() -> t.createSrq(new io.srdnic.srd.transport.SrqAttributes().maxWr(maxWr).limit(limit)
            .pd(pd.id).srcDomain(xrcd.domain).srcSrqNumber(t.freeSrcSrqNumber()).srcCq(cq.ring)));
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
        return attached != null ? attachedXrcNumber : srq.srcSrqNumber();
    }

    /** The SRQ's number: SRQ_LIMIT_REACHED events carry it. */
    public int srqNum() {
        return attached != null ? attachedSrqn : srq.srqn();
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
        if (attached != null) {
            return ask(io.srdnic.verbs.attach.control.SrqRequest.LIMIT, 0);
        }
        return context.dataplane.call(srq::limit);
    }

    /** Receives posted and not yet taken by a message (ahead of the dataplane by the posts it has not yet drained). */
    public int receivesPosted() {
        if (attached != null) { // the dataplane's count: the ring's records not yet taken are not in it
            return ask(io.srdnic.verbs.attach.control.SrqRequest.POSTED, 0);
        }
        return (int) (posted.get() - srq.receivesTaken());
    }

    /** Attached: one SRQ call on the dataplane; its answer. */
    private int ask(int op, int value) {
        return context.session.request(new io.srdnic.verbs.attach.control.SrqRequest(op, attachedSrqn, value)).state();
    }

    /** Posts a receive; 0, or ENOMEM when the SRQ is full. The SGE must lie in a region of this SRQ's PD with LOCAL_WRITE. */
    public int postSrqRecv(RecvWr wr) {
        checkAlive();
        Sge s = wr.sge;
        pd.checkReceiveBuffer(s);
        if (attached != null) {
            return attached.postRecv(wr); // ENOMEM when the ring is full; the dataplane takes records as the SRQ has room
        }
        if (receivesPosted() >= maxWr) {
            return QueuePair.ENOMEM;
        }
        posted.incrementAndGet();
        if (!context.dataplane.postSrqRecv(srq, wr.wrId, s.segment, s.offset, s.length, s.lkey)) {
            posted.decrementAndGet();
            return QueuePair.ENOMEM;
        }
        return 0;
    }

    /** Arms the limit event ({@code limit} > 0) or disarms it (0), as ibv_modify_srq with IBV_SRQ_LIMIT; 0..max_wr. */
    public void modify(int limit) {
        checkAlive();
        if (limit < 0 || limit > maxWr) {
            throw new VerbsException("srq_limit must be 0 (disarmed) .. max_wr " + maxWr + ", was " + limit);
        }
        if (attached != null) {
            ask(io.srdnic.verbs.attach.control.SrqRequest.MODIFY, limit);
            return;
        }
        context.dataplane.call(() -> {
            srq.modify(limit);
            return null;
        });
    }

    /** Destroys the SRQ and the receives still posted (no completions: no QP owns them). Refused while a QP uses it. */
    public void destroy() {
        checkAlive();
        if (attached != null) {
            context.session.request(new io.srdnic.verbs.attach.control.DestroyRequest(io.srdnic.verbs.attach.control.DestroyRequest.SRQ,
                attachedSrqn));
        } else {
            try {
                context.dataplane.call(() -> {
                    srq.destroy();
                    return null;
                });
            } catch (IllegalStateException e) {
                throw new VerbsException(e.getMessage());
            }
        }
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
