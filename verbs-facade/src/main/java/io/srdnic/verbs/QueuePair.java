package io.srdnic.verbs;

import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.QpAttributes;
import io.srdnic.srd.transport.QpState;
import io.srdnic.srd.transport.QpType;
import io.srdnic.srd.transport.SrdQp;
import io.srdnic.srd.transport.SrdTransport;
import io.srdnic.verbs.attach.RecvRecord;
import io.srdnic.verbs.attach.SendRecord;
import io.srdnic.verbs.attach.ShmRing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A queue pair (ibv_qp) of type SRD, UD or RC, or XRC_SEND / XRC_RECV ({@link XrcQpType}, the
 * transport's SRC QPs: {@link #type()} is SRC, {@link #xrcType()} says which half). States and transitions are the verbs state machine's
 * (RESET → INIT → RTR → RTS ⇄ SQD, any → ERROR or RESET), with the attributes each move takes as
 * {@link io.srdnic.srd.transport.QpTransitions} has them; SRD and UD follow UD's. {@link #postSend} and {@link #postRecv} return 0 or
 * {@link #ENOMEM} when the queue is full, throw {@link VerbsException} on misuse (wrong state, a
 * destroyed QP or AH), and report what the seed names as completion statuses: SGEs outside their
 * region or a wrong lkey complete with LOCAL_PROTECTION_ERROR, a message over the MTU with
 * LOCAL_LENGTH_ERROR. Atomics (RC only; LOCAL_QP_OPERATION_ERROR elsewhere) take one SGE of 8 bytes
 * (else LOCAL_LENGTH_ERROR) in a region with LOCAL_WRITE (else LOCAL_PROTECTION_ERROR); a remote
 * address not 8-byte aligned or the INLINE flag throws, as rxe's post returns EINVAL. A single-SGE
 * send goes from the application's memory; several SGEs or INLINE are gathered into a staging slot
 * of the QP, recycled when the transport is done with it. INLINE bytes are taken before postSend
 * returns and, as in verbs, need no memory region (their lkey is not looked at); a READ takes none.
 */
public final class QueuePair {
    /** Returned by a post when the queue is full (ENOMEM in verbs). */
    public static final int ENOMEM = -12;

    final ProtectionDomain pd;
    final Context context;
    /** The transport's QP; null when attached. */
    final SrdQp qp;
    /** Attached: the QP's rings in the shared file; else null. */
    final AttachedQp attached;
    final QpType type;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    /** Where this QP's receives come from when it has no receive queue of its own; else null. */
    final SharedReceiveQueue srq;
    /** XRC_SEND or XRC_RECV (an SRC QP), else null. */
    final XrcQpType xrcType;
    /** XRC_SEND: the SRC domain the transport requires of an SRC QP, its own (no SRQ ever names it). */
    private io.srdnic.srd.transport.SrcDomain ownDomain;
    final int maxSendWr;
    final int maxRecvWr;
    final int maxSendSge;
    final int maxInlineData;
    private final AtomicInteger sendsOutstanding = new AtomicInteger();
    final AtomicInteger receivesPosted = new AtomicInteger();
    private volatile QpState state = QpState.RESET;
    private volatile boolean destroyed;
    private final Arena stagingArena = Arena.ofShared();
    private MemorySegment staging;
    private final int[] freeStaging;
    private int freeStagingCount;
    /** Staging slots the dataplane thread gave back, for the posting thread to pick up. */
    private final java.util.concurrent.atomic.AtomicIntegerArray returnedStaging;
    private final AtomicInteger returnedHead = new AtomicInteger();
    private int returnedRead;

    QueuePair(ProtectionDomain pd, QpType type, CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq, int maxSendWr,
              int maxRecvWr, int maxSendSge, int maxInlineData) {
        this(pd, type, null, null, sendCq, recvCq, srq, maxSendWr, maxRecvWr, maxSendSge, maxInlineData, false);
    }

    /** {@code management}: the device's management QP (UD at {@link SrdTransport#MANAGEMENT_QPN}), else a QP of a drawn number. */
    QueuePair(ProtectionDomain pd, QpType type, CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq, int maxSendWr,
              int maxRecvWr, int maxSendSge, int maxInlineData, boolean management) {
        this(pd, type, null, null, sendCq, recvCq, srq, maxSendWr, maxRecvWr, maxSendSge, maxInlineData, management);
    }

    /** An XRC QP: XRC_SEND with {@code sendCq}, or XRC_RECV in {@code xrcd}. */
    QueuePair(ProtectionDomain pd, XrcQpType xrcType, XrcDomain xrcd, CompletionQueue sendCq, int maxSendWr, int maxSendSge,
              int maxInlineData) {
        this(pd, QpType.SRC, xrcType, xrcd, sendCq, null, null, maxSendWr, 1, maxSendSge, maxInlineData, false);
    }

    private QueuePair(ProtectionDomain pd, QpType type, XrcQpType xrcType, XrcDomain xrcd, CompletionQueue sendCq, CompletionQueue recvCq,
                      SharedReceiveQueue srq, int maxSendWr, int maxRecvWr, int maxSendSge, int maxInlineData, boolean management) {
        this.pd = pd;
        this.xrcType = xrcType;
        this.context = pd.context;
        this.type = type;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        this.maxSendSge = maxSendSge;
        this.maxInlineData = maxInlineData;
        this.freeStaging = new int[maxSendWr];
        this.returnedStaging = new java.util.concurrent.atomic.AtomicIntegerArray(Integer.highestOneBit(maxSendWr) << 1);
        if (context.session != null) {
            this.qp = null;
            this.attached = createAttached(xrcd);
            return;
        }
        this.attached = null;
        this.qp = context.dataplane.call(() -> management
            ? context.dataplane.transport.createManagementQp(pd.id, maxSendWr, maxRecvWr, sendCq.ring, recvCq.ring)
            : create(xrcd));
        qp.onSendRelease(this::released);
        context.registerQp(this);
        useCqs(1);
    }

    /** Embedded: counts this QP as a user of its CQs, which refuse to be destroyed while it lives (EBUSY). */
    private void useCqs(int delta) {
        if (sendCq != null) {
            sendCq.users.addAndGet(delta);
        }
        if (recvCq != null) {
            recvCq.users.addAndGet(delta);
        }
    }

    /** Attached: asks the dataplane for the QP and finds its rings in the shared file. */
    private AttachedQp createAttached(XrcDomain xrcd) {
        AttachedSession s = context.session;
        io.srdnic.verbs.attach.control.HandleReply r = s.request(new io.srdnic.verbs.attach.control.CreateQpRequest(pd.id, type.ordinal(),
            sendCq == null ? 0 : sendCq.handle, recvCq == null ? 0 : recvCq.handle, maxSendWr, maxRecvWr, maxSendSge, maxInlineData,
            srq == null ? 0 : srq.srqNum(), xrcType == null ? -1 : xrcType.ordinal(), xrcd == null ? 0 : xrcd.handle));
        return new AttachedQp(s, r.handle(),
            new ShmRing(s.rings.asSlice(r.firstRing(), ShmRing.bytes(r.firstCapacity(), SendRecord.BYTES)), r.firstCapacity(), SendRecord.BYTES),
            new ShmRing(s.rings.asSlice(r.secondRing(), ShmRing.bytes(r.secondCapacity(), RecvRecord.BYTES)), r.secondCapacity(),
                RecvRecord.BYTES));
    }

    /** On the dataplane thread: the transport's QP for this one. */
    private SrdQp create(XrcDomain xrcd) {
        SrdTransport t = context.dataplane.transport;
        if (xrcType == XrcQpType.XRC_SEND) {
            ownDomain = t.createSrcDomain();
            return t.createQp(QpType.SRC, pd.id, maxSendWr, ownDomain, sendCq.ring);
        }
        if (xrcType == XrcQpType.XRC_RECV) {
            // No send queue: its CQ would only ever see completions of work nobody can post.
            return t.createQp(QpType.SRC, pd.id, 1, xrcd.domain, new io.srdnic.srd.api.CompletionQueue(1));
        }
        return srq == null ? t.createQp(type, pd.id, maxSendWr, maxRecvWr, sendCq.ring, recvCq.ring)
            : t.createQp(type, pd.id, maxSendWr, srq.srq, sendCq.ring, recvCq.ring);
    }

    /** XRC_SEND or XRC_RECV for the XRC shape of an SRC QP, else null. */
    public XrcQpType xrcType() {
        return xrcType;
    }

    public int qpNum() {
        return attached != null ? attached.qpn : qp.qpn();
    }

    public QpType type() {
        return type;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    public QpState state() {
        return state;
    }

    /** Moves the QP to {@code next}; {@code qkey} is taken on the move to INIT. Illegal moves throw. */
    public void modify(QpState next, int qkey) {
        if (attached != null) {
            applyAttached(io.srdnic.verbs.attach.control.ModifyQpRequest.simple(qpNum(), next, qkey));
            return;
        }
        apply(() -> qp.modify(next, qkey));
    }

    /**
     * Modifies the QP as ibv_modify_qp does: moves it to the state set (or keeps it) and takes the
     * attributes set. A move to SQD with {@code sqDrainedNotify} raises SQ_DRAINED through
     * {@link Context#pollAsyncEvent()} once every send posted before it has completed; until then
     * the QP can only go to ERROR or RESET. A misuse (an illegal move, an attribute missing, not
     * taken or out of range) throws a VerbsException that names it.
     */
    public void modify(QpAttributes attributes) {
        QpAttributes complete = xrcType == null ? attributes : XrcTransitions.complete(xrcType, state, attributes);
        if (attached != null) {
            applyAttached(io.srdnic.verbs.attach.control.ModifyQpRequest.of(qpNum(), complete));
            return;
        }
        apply(() -> qp.modify(complete));
    }

    private void applyAttached(io.srdnic.verbs.attach.control.ModifyQpRequest request) {
        checkAlive();
        state = io.srdnic.verbs.attach.control.ModifyQpRequest.state(context.session.request(request).state());
    }

    private void apply(Runnable modify) {
        checkAlive();
        QpState now;
        try {
            now = context.dataplane.call(() -> {
                // Posts made before this modify reach the transport before it: a move to SQD then
                // drains them rather than refusing them.
                context.dataplane.runPostedFirst();
                modify.run();
                return qp.state();
            });
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new VerbsException(e.getMessage());
        }
        state = now;
        if (now == QpState.RESET || now == QpState.ERROR) {
            receivesPosted.set(0);
        }
    }

    /**
     * The QP's current attributes (ibv_query_qp): its state and every attribute its type has (the
     * mask says which); {@link QpAttributes#sqDraining()} tells whether an SQD drain is still going on
     * (embedded only: attached, the dataplane's answer does not carry it, and SQ_DRAINED says when).
     * Attached, this asks the dataplane, and the QP's {@link #state()} becomes what it answered.
     */
    public QpAttributes query() {
        checkAlive();
        if (attached != null) {
            QpAttributes a = context.session.call(new io.srdnic.verbs.attach.control.QueryQpRequest(qpNum()),
                io.srdnic.verbs.attach.control.QpAttributesReply.class).attributes().toAttributes();
            state = a.state(); // an RC QP may have gone to ERROR in the dataplane since the last modify
            return a;
        }
        return context.dataplane.call(() -> qp.query(new QpAttributes()));
    }

    /** The QP's RNR retry count (0..7; SRD's default 0: no retries, as the seed says). */
    public void rnrRetry(int retries) {
        checkAlive();
        context.notAttached("RNR retry changes outside modify");
        context.dataplane.call(() -> {
            qp.rnrRetry(retries);
            return null;
        });
    }

    /** Posts a send; 0, or ENOMEM when the send queue is full. */
    public int postSend(SendWr wr) {
        checkAlive();
        if (state != QpState.RTS) {
            throw new VerbsException("QP " + qpNum() + " is in " + state + ": sends need RTS");
        }
        if (xrcType == XrcQpType.XRC_RECV) {
            throw new VerbsException("QP " + qpNum() + " is XRC_RECV: it has no send queue; post on the peer's XRC_SEND QP");
        }
        if (xrcType == XrcQpType.XRC_SEND && (wr.remoteSrqn <= 0 || wr.remoteSrqn > 0xFF_FFFF)) {
            throw new VerbsException("an XRC_SEND work request names the remote XRC SRQ: set SendWr.remoteSrqn to its srqNumber(), was "
                + wr.remoteSrqn);
        }
        AddressHandle ah = wr.ah;
        boolean connected = type.connected(); // its path was fixed at RTR: the WR names no destination
        if (!connected && (ah == null || ah.destroyed)) {
            throw new VerbsException("the work request's address handle is " + (ah == null ? "not set" : "destroyed"));
        }
        if (!connected && ah.pd != pd) {
            throw new VerbsException("the address handle belongs to another protection domain than the QP");
        }
        if (attached != null) {
            if (SendOpcode.isAtomic(wr.opcode)) {
                checkAtomic(wr); // what rxe refuses at posting is refused here too, not as a completion
            }
            if ((wr.flags & SendWr.INLINE) != 0) {
                checkInline(wr, wr.lengthsOverflow() ? Integer.MAX_VALUE : wr.totalLength());
            }
            return attached.postSend(wr, connected ? 0 : ah.id); // the dataplane runs the checks below on its side
        }
        if (sendsOutstanding.get() >= maxSendWr) {
            return ENOMEM;
        }
        boolean signaled = (wr.flags & SendWr.SIGNALED) != 0;
        int total = wr.totalLength();
        boolean rdma = SendOpcode.isRdma(wr.opcode);
        boolean atomic = SendOpcode.isAtomic(wr.opcode);
        // Atomics are RC's alone: SRD delivers in any order and keeps no answer per request.
        if (!SendOpcode.isValid(wr.opcode) || (rdma && type == QpType.UD) || (atomic && !connected)) {
            context.dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_QP_OPERATION_ERROR, total);
            return 0;
        }
        if (wr.lengthsOverflow()) {
            context.dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_LENGTH_ERROR, 0);
            return 0;
        }
        if (wr.numSge > maxSendSge || (atomic && wr.numSge != 1) || (rdma && wr.numSge != (total == 0 ? wr.numSge : 1))) {
            // RDMA and atomics go straight from (or into) one registered buffer: no gather or scatter here;
            // a zero-byte READ or WRITE may come with no SGE at all (IBTA C9-88).
            context.dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_QP_OPERATION_ERROR, total);
            return 0;
        }
        if (atomic) {
            return postAtomic(wr, total, signaled);
        }
        boolean inline = (wr.flags & SendWr.INLINE) != 0;
        if (inline) {
            checkInline(wr, total);
        }
        // Inline bytes are copied below, now, and name no region (verbs ignores an inline SGE's
        // lkey); the others must lie in a region of this QP's PD. A READ's response is written into its SGE.
        if (inline ? inlineRefused(wr, total) : sgeRefused(wr, wr.opcode == SendWr.OP_RDMA_READ, total)) {
            return 0;
        }
        MemorySegment buffer;
        long offset;
        if (wr.numSge == 1 && !inline) {
            buffer = wr.sges[0].segment;
            offset = wr.sges[0].offset;
        } else if (total == 0 && rdma) {
            buffer = MemorySegment.NULL; // nothing to send from or read into
            offset = 0;
        } else if (total > context.mtu()) {
            buffer = MemorySegment.NULL;
            offset = 0;
        } else {
            int slot = takeStaging();
            buffer = staging;
            offset = (long) slot * context.mtu();
            long at = offset;
            for (int i = 0; i < wr.numSge; i++) {
                Sge s = wr.sges[i];
                MemorySegment.copy(s.segment, s.offset, staging, at, s.length);
                at += s.length;
            }
        }
        sendsOutstanding.incrementAndGet();
        return post(context.dataplane.postSend(qp, connected ? 0 : ah.id, wr.remoteQpn, wr.remoteQkey, wr.remoteSrqn, wr.wrId, wr.opcode,
            buffer, offset, total, wr.immediate, wr.remoteAddress, wr.rkey, signaled), buffer, offset);
    }

    /**
     * An atomic checked as far as its opcode and SGE count: the rest of its checks, then the post.
     * Apart from {@link #postSend}, whose SEND path every round trip takes.
     */
    private int postAtomic(SendWr wr, int total, boolean signaled) {
        checkAtomic(wr);
        if (total != SendOpcode.ATOMIC_SIZE) {
            context.dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_LENGTH_ERROR, total);
            return 0;
        }
        if (sgeRefused(wr, true, total)) { // the original value is written into the SGE
            return 0;
        }
        Sge s = wr.sges[0];
        sendsOutstanding.incrementAndGet();
        return post(context.dataplane.postAtomic(qp, wr.remoteSrqn, wr.wrId, wr.opcode, s.segment, s.offset, wr.remoteAddress, wr.rkey,
            wr.compareAdd, wr.swap, signaled), s.segment, s.offset);
    }

    /**
     * Whether an SGE of {@code wr} lies outside a region of this QP's PD, or, where the response
     * {@code landsLocally}, in one without LOCAL_WRITE: then the request completes at once with
     * LOCAL_PROTECTION_ERROR.
     */
    private boolean sgeRefused(SendWr wr, boolean landsLocally, int total) {
        for (int i = 0; i < wr.numSge; i++) {
            Sge s = wr.sges[i];
            MemoryRegion mr = context.region(s.lkey);
            if (mr == null || mr.pd != pd || s.segment == null || !mr.covers(s.segment, s.offset, s.length)
                || (landsLocally && (mr.access & Access.LOCAL_WRITE) == 0)) {
                context.dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_PROTECTION_ERROR, total);
                return true;
            }
        }
        return false;
    }

    /** What an INLINE post is refused with at once: more bytes than the QP takes inline, or a READ (its SGE is where data lands). */
    private void checkInline(SendWr wr, int total) {
        if (wr.opcode == SendWr.OP_RDMA_READ) {
            throw new VerbsException("an RDMA READ takes no inline data: its SGE is where the response lands");
        }
        if (total > maxInlineData) {
            throw new VerbsException("inline send of " + total + " bytes exceeds the QP's max_inline_data " + maxInlineData);
        }
    }

    /** An inline SGE naming no memory, or bytes outside its segment: LOCAL_PROTECTION_ERROR, as a region check would. */
    private boolean inlineRefused(SendWr wr, int total) {
        for (int i = 0; i < wr.numSge; i++) {
            Sge s = wr.sges[i];
            if (s.segment == null || s.offset < 0 || s.length < 0 || s.offset > s.segment.byteSize() - s.length) {
                context.dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_PROTECTION_ERROR, total);
                return true;
            }
        }
        return false;
    }

    /**
     * What rxe refuses an atomic with at posting (EINVAL, nothing posted): inline data, or a remote
     * word that is not 8-byte aligned.
     */
    private void checkAtomic(SendWr wr) {
        if ((wr.flags & SendWr.INLINE) != 0) {
            throw new VerbsException("an atomic takes no inline data: its SGE is where the original value lands");
        }
        if ((wr.remoteAddress & (SendOpcode.ATOMIC_SIZE - 1)) != 0) {
            throw new VerbsException("an atomic's remote address must be 8-byte aligned, was 0x" + Long.toHexString(wr.remoteAddress));
        }
    }

    /** The transport's answer {@code rc} to a post counted in sendsOutstanding: 0, ENOMEM, or the misuse it names. */
    private int post(int rc, MemorySegment buffer, long offset) {
        if (rc == SrdTransport.POST_OK) {
            return 0;
        }
        released(buffer, offset);
        if (rc == SrdTransport.POST_SQ_FULL || rc == SrdTransport.POST_NO_RESOURCES) {
            return ENOMEM;
        }
        if (rc == SrdTransport.POST_BAD_QP_STATE) {
            state = qp.state();
            throw new VerbsException("QP " + qpNum() + " is in " + state + " (an RC QP goes there when its connection fails; its"
                + " completions say why): sends need RTS");
        }
        throw new VerbsException("post refused by the transport (code " + rc + ")");
    }

    /**
     * Posts a receive; 0, or ENOMEM when the receive queue is full. The SGE must lie in a registered
     * region. Refused on a QP created on an SRQ (EINVAL in verbs): post to the SRQ instead.
     */
    public int postRecv(RecvWr wr) {
        checkAlive();
        if (xrcType != null) {
            throw new VerbsException("QP " + qpNum() + " is " + xrcType + ": it has no receive queue; XRC messages take their receives"
                + " from the XRC SRQ they name (post them with SharedReceiveQueue.postSrqRecv)");
        }
        if (srq != null) {
            throw new VerbsException("QP " + qpNum() + " takes its receives from SRQ " + srq.srqNum()
                + ": post them with SharedReceiveQueue.postSrqRecv");
        }
        if (state == QpState.RESET) {
            throw new VerbsException("QP " + qpNum() + " is in " + state + ": receives need INIT, RTR or RTS (in ERROR they are flushed)");
        }
        Sge s = wr.sge;
        pd.checkReceiveBuffer(s);
        if (attached != null) {
            return attached.postRecv(wr);
        }
        if (receivesPosted.get() >= maxRecvWr) {
            return ENOMEM;
        }
        receivesPosted.incrementAndGet();
        if (!context.dataplane.postRecv(qp, wr.wrId, s.segment, s.offset, s.length, s.lkey)) {
            receivesPosted.decrementAndGet();
            return ENOMEM;
        }
        return 0;
    }

    /** Send work requests posted and not yet finished with by the transport. */
    public int sendsOutstanding() {
        return sendsOutstanding.get();
    }

    /** Destroys the QP: pending sends are aborted without completions; other QPs are unaffected. */
    public void destroy() {
        checkAlive();
        if (attached != null) {
            context.session.request(new io.srdnic.verbs.attach.control.DestroyRequest(io.srdnic.verbs.attach.control.DestroyRequest.QP,
                qpNum())); // first: a refused or timed-out destroy leaves the QP usable, and destroyable again
            destroyed = true;
            pd.qps.decrementAndGet();
            stagingArena.close();
            return;
        }
        destroyed = true;
        context.dataplane.call(() -> {
            qp.destroy();
            if (ownDomain != null) {
                ownDomain.destroy();
            }
            return null;
        });
        context.unregisterQp(this);
        useCqs(-1);
        pd.qps.decrementAndGet();
        stagingArena.close();
    }

    private void checkAlive() {
        if (destroyed) {
            throw new VerbsException("QP was destroyed");
        }
    }

    private int takeStaging() {
        if (staging == null) {
            staging = stagingArena.allocate((long) maxSendWr * context.mtu(), 64);
            for (int i = maxSendWr - 1; i >= 0; i--) {
                freeStaging[freeStagingCount++] = i;
            }
        }
        int mask = returnedStaging.length() - 1;
        int head = returnedHead.get();
        while (returnedRead != head) {
            freeStaging[freeStagingCount++] = returnedStaging.get(returnedRead & mask);
            returnedRead++;
        }
        return freeStaging[--freeStagingCount];
    }

    /** The transport is done with a send: count it off and recycle its staging slot. Dataplane thread. */
    private void released(MemorySegment buffer, long offset) {
        sendsOutstanding.decrementAndGet();
        if (staging != null && buffer == staging) {
            int mask = returnedStaging.length() - 1;
            int h = returnedHead.get();
            returnedStaging.set(h & mask, (int) (offset / context.mtu()));
            returnedHead.lazySet(h + 1);
        }
    }
}
