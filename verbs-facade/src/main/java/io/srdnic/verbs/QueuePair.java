package io.srdnic.verbs;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.transport.device.TransportDevice;

/**
 * A queue pair (ibv_qp) of type SRD, UD or RC, or XRC_SEND / XRC_RECV ({@link XrcQpType}, the
 * transport's SRC QPs: {@link #type()} is SRC, {@link #xrcType()} says which half). States and transitions are the verbs state machine's
 * (RESET → INIT → RTR → RTS ⇄ SQD, any → ERROR or RESET), with the attributes each move takes as
 * {@link io.srdnic.srd.transport.qp.QpTransitions} has them; SRD and UD follow UD's. {@link #postSend} and {@link #postRecv} return 0 or
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
    final QpType type;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    /** Where this QP's receives come from when it has no receive queue of its own; else null. */
    final SharedReceiveQueue srq;
    /** XRC_SEND or XRC_RECV (an SRC QP), else null. */
    final XrcQpType xrcType;
    final int maxSendWr;
    final int maxRecvWr;
    final int maxSendSge;
    final int maxInlineData;
    /** Every send is signaled, whatever its work request says (ibv_qp_init_attr.sq_sig_all). */
    final boolean sqSigAll;
    /** The provider's QP (made last, from the fields above): the transport's, or the dataplane process's rings. */
    final VerbsProvider.Qp ops;
    /** What the last verb on the QP (modify, query, a refused post) found it in; the provider sets it. */
    volatile QpState state = QpState.RESET;
    volatile boolean destroyed;

    /**
     * A QP of {@code pd} as {@code init} says ({@link ProtectionDomain#createQueuePair(QpInitAttributes)} checked it);
     * {@code management}: the device's management QP (UD at {@link TransportDevice#MANAGEMENT_QPN}), else a QP of a drawn number.
     */
    QueuePair(ProtectionDomain pd, QpInitAttributes init, boolean management) {
        this.pd = pd;
        this.xrcType = init.xrcType;
        this.context = pd.context;
        this.type = init.type;
        this.sendCq = init.sendCq;
        this.recvCq = init.recvCq;
        this.srq = init.srq;
        // What a queue the QP does not have is sized at: one entry (the transport makes every QP both queues).
        this.maxSendWr = xrcType == XrcQpType.XRC_RECV ? 1 : init.maxSendWr;
        this.maxRecvWr = srq != null || xrcType != null ? 1 : init.maxRecvWr;
        this.maxSendSge = xrcType == XrcQpType.XRC_RECV ? 1 : init.maxSendSge;
        this.maxInlineData = init.maxInlineData;
        this.sqSigAll = init.sqSigAll;
        this.ops = context.provider.createQp(this, init.xrcd, management);
    }

    /** XRC_SEND or XRC_RECV for the XRC shape of an SRC QP, else null. */
    public XrcQpType xrcType() {
        return xrcType;
    }

    public int qpNum() {
        return ops.qpNum();
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
        checkAlive();
        ops.modify(next, qkey);
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
        checkAlive();
        ops.modify(complete);
    }

    /**
     * The QP's current attributes (ibv_query_qp): its state and every attribute its type has (the
     * mask says which); {@link QpAttributes#sqDraining()} tells whether an SQD drain is still going on
     * (embedded only: attached, the dataplane's answer does not carry it, and SQ_DRAINED says when).
     * Attached, this asks the dataplane, and the QP's {@link #state()} becomes what it answered.
     */
    public QpAttributes query() {
        checkAlive();
        return ops.query();
    }

    /** The QP's RNR retry count (0..7; SRD's default 0: no retries, as the seed says). */
    public void rnrRetry(int retries) {
        checkAlive();
        ops.rnrRetry(retries);
    }

    /**
     * Posts a send; 0, or ENOMEM when the send queue is full. In ERROR the send is taken and completes
     * WR_FLUSH_ERR, as verbs flushes what is posted to a QP in ERROR; before RTS, or in SQD, it is refused.
     */
    public int postSend(SendWr wr) {
        return ops.postSend(wr, checkSend(wr));
    }

    /**
     * The checks of {@link #postSend} that throw (a destroyed QP, one not in RTS, an XRC QP's misuse,
     * a missing, destroyed or foreign address handle); returns the address handle's number, 0 for
     * a connected QP. The dataplane process's served post ({@link EmbeddedObjects#postSend}) makes them too.
     */
    int checkSend(SendWr wr) {
        checkAlive();
        if (state != QpState.RTS && state != QpState.ERROR) {
            throw new VerbsException("QP " + qpNum() + " is in " + state + ": sends need RTS (in ERROR they are flushed)");
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
        return connected ? 0 : ah.id;
    }

    /** What an INLINE post is refused with at once: more bytes than the QP takes inline, or a READ (its SGE is where data lands). */
    void checkInline(SendWr wr, int total) {
        if (wr.opcode == SendWr.OP_RDMA_READ) {
            throw new VerbsException("an RDMA READ takes no inline data: its SGE is where the response lands");
        }
        if (total > maxInlineData) {
            throw new VerbsException("inline send of " + total + " bytes exceeds the QP's max_inline_data " + maxInlineData);
        }
    }

    /**
     * What rxe refuses an atomic with at posting (EINVAL, nothing posted): inline data, or a remote
     * word that is not 8-byte aligned.
     */
    static void checkAtomic(SendWr wr) {
        if ((wr.flags & SendWr.INLINE) != 0) {
            throw new VerbsException("an atomic takes no inline data: its SGE is where the original value lands");
        }
        if ((wr.remoteAddress & (SendOpcode.ATOMIC_SIZE - 1)) != 0) {
            throw new VerbsException("an atomic's remote address must be 8-byte aligned, was 0x" + Long.toHexString(wr.remoteAddress));
        }
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
        return ops.postRecv(wr);
    }

    /** Send work requests posted and not yet finished with by the transport. */
    public int sendsOutstanding() {
        return ops.sendsOutstanding();
    }

    /** Destroys the QP: pending sends are aborted without completions; other QPs are unaffected. */
    public void destroy() {
        checkAlive();
        ops.destroy();
        destroyed = true;
        pd.qps.decrementAndGet();
    }

    private void checkAlive() {
        if (destroyed) {
            throw new VerbsException("QP was destroyed");
        }
    }
}
