package io.srdnic.srd.transport.qp;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;

/**
 * One queue pair (SRD, UD, or RC's state machine) inside a transport: its number, state and the attributes modify
 * gave it (Q_Key, RNR retry count, RC's path and timers), send-queue depth, receive queue (its own, or a
 * {@link SharedReceiveQueue}), and the completion queues it reports to. Many QPs share each SRD
 * context; a QP's failures never disturb the context or other QPs.
 * <p>
 * It knows its device only through what it is handed at creation ({@link QpDevice}, {@link QpEvents});
 * the message layers read and write its fields directly (they are public for them, not for applications,
 * which see the methods). The device's {@code DeviceQp} adds the halves of an RC or SRC connection.
 */
public class TransportQp {
    /** The seed: "Requester does not perform any retries" on SRD RNR, unless the QP asks for them. */
    public static final int DEFAULT_RNR_RETRY = 0;

    /** What this QP reads of its device. */
    private final QpDevice device;
    /** Where this QP's CQ overruns, flushes, events and modifies go. */
    private final QpEvents errors;
    public final QpType type;
    public final int qpn;
    /** The protection domain: RDMA requests to this QP may name only this domain's memory regions. */
    public final int pd;
    public final CompletionQueue sendCq;
    public final CompletionQueue recvCq;
    /** Where messages find their receives: the QP's own ring, or its SRQ's. */
    public ReceiveQueue receives;
    public SharedReceiveQueue srq;
    /** SRC only: the domain whose SRQs the messages arriving here may name (null on other types). */
    public SrcMembership srcDomain;
    public final int sqDepth;
    // What modify set (see QpAttributes): UD and SRD read qkey and rnrRetry; the rest is what RC's data path reads.
    public int qkey;
    public int rnrRetry = DEFAULT_RNR_RETRY;
    public int destQpn;
    public int rqPsn;
    public int sqPsn;
    public int addressHandle = QpAttributes.NO_ADDRESS_HANDLE;
    public int pathMtu;
    public int timeout;
    public int retryCnt;
    public int minRnrTimer;
    public int maxRdAtomic;
    public int maxDestRdAtomic;
    public int accessFlags;
    public QpState state = QpState.RESET;
    public int sqOutstanding;
    /** In SQD, asked for SQ_DRAINED and not yet raised: the last outstanding send's completion raises it. */
    private boolean drainedEventOwed;
    public boolean destroyed;
    public long rnrDrops;

    protected TransportQp(QpDevice device, QpEvents errors, QpType type, int qpn, int pd, int sqDepth, int rqDepth, CompletionQueue sendCq,
                          CompletionQueue recvCq) {
        this.device = device;
        this.errors = errors;
        this.type = type;
        this.qpn = qpn;
        this.pd = pd;
        this.sqDepth = sqDepth;
        this.receives = new ReceiveQueue(rqDepth);
        this.sendCq = sendCq;
        this.recvCq = recvCq;
    }

    public int qpn() {
        return qpn;
    }

    public QpType type() {
        return type;
    }

    public QpState state() {
        return state;
    }

    public int qkey() {
        return qkey;
    }

    /**
     * Moves a UD or SRD QP to {@code next}, filling in what UD's transitions require: on the move to
     * INIT the Q_Key (with port 1 and P_Key index 0), on RTR -> RTS an SQ PSN of 0 (SRD numbers its
     * packets per context, not per QP). The short form for datagram QPs; an RC QP, whose moves take
     * many attributes, is moved by {@link #modify(QpAttributes)}.
     */
    public void modify(QpState next, int newQkey) {
        QpAttributes attributes = new QpAttributes().state(next);
        if (!type.connected() && next == QpState.INIT && (state == QpState.RESET || state == QpState.INIT)) {
            attributes.qkey(newQkey).port(1).pkeyIndex(0);
        } else if (!type.connected() && next == QpState.RTS && state == QpState.RTR) {
            attributes.sqPsn(0);
        }
        modify(attributes);
    }

    /**
     * Modifies the QP as ibv_modify_qp does: moves it to {@code attributes.state()} (or stays, when
     * no state is set) and takes the attributes set. Checked whole before anything changes.
     *
     * @throws IllegalStateException    an illegal move, a destroyed QP, or a move out of SQD before it has drained
     * @throws IllegalArgumentException a required attribute missing, one the move does not take, or a value out of range
     */
    public void modify(QpAttributes attributes) {
        if (destroyed) {
            throw new IllegalStateException("QP " + qpn + " is destroyed: create a new one");
        }
        QpState next = QpTransitions.check(type, state, attributes);
        QpAttributeChecks.check(attributes, device.mtu(), device.liveAddressHandle());
        if (state == QpState.SQD && sqOutstanding > 0 && next != QpState.ERROR && next != QpState.RESET) {
            // As rdmavt: changing a QP under messages still in flight is what SQD exists to prevent.
            throw new IllegalStateException("QP " + qpn + " is still draining its send queue (" + sqOutstanding
                + " sends outstanding): wait for SQ_DRAINED, or until query() says sqDraining() is false, before modifying it;"
                + " or move it to ERROR to flush them");
        }
        take(attributes);
        QpState from = state;
        state = next;
        errors.modified(this, from);
        drainedEventOwed = next == QpState.SQD && attributes.has(QpAttributes.SQ_DRAINED_NOTIFY) && attributes.sqDrainedNotify();
        raiseDrainedIfOwed();
        if (next == QpState.ERROR || next == QpState.RESET) {
            errors.flush(this, next == QpState.ERROR);
        }
    }

    private void take(QpAttributes a) {
        qkey = a.has(QpAttributes.QKEY) ? a.qkey() : qkey;
        rnrRetry = a.has(QpAttributes.RNR_RETRY) ? a.rnrRetry() : rnrRetry;
        destQpn = a.has(QpAttributes.DEST_QPN) ? a.destQpn() : destQpn;
        rqPsn = a.has(QpAttributes.RQ_PSN) ? a.rqPsn() : rqPsn;
        sqPsn = a.has(QpAttributes.SQ_PSN) ? a.sqPsn() : sqPsn;
        addressHandle = a.has(QpAttributes.ADDRESS_HANDLE) ? a.addressHandle() : addressHandle;
        pathMtu = a.has(QpAttributes.PATH_MTU) ? a.pathMtu() : pathMtu;
        timeout = a.has(QpAttributes.TIMEOUT) ? a.timeout() : timeout;
        retryCnt = a.has(QpAttributes.RETRY_CNT) ? a.retryCnt() : retryCnt;
        minRnrTimer = a.has(QpAttributes.MIN_RNR_TIMER) ? a.minRnrTimer() : minRnrTimer;
        maxRdAtomic = a.has(QpAttributes.MAX_RD_ATOMIC) ? a.maxRdAtomic() : maxRdAtomic;
        maxDestRdAtomic = a.has(QpAttributes.MAX_DEST_RD_ATOMIC) ? a.maxDestRdAtomic() : maxDestRdAtomic;
        accessFlags = a.has(QpAttributes.ACCESS_FLAGS) ? a.accessFlags() : accessFlags;
    }

    /**
     * The QP's current attributes (ibv_query_qp) into {@code into}, whose mask then holds the state
     * and every attribute this QP type has; {@code sqDraining()} says whether SQD is still draining.
     */
    public QpAttributes query(QpAttributes into) {
        into.clear().state(state).port(1).pkeyIndex(0).qkey(qkey).rnrRetry(rnrRetry).destQpn(destQpn).rqPsn(rqPsn).sqPsn(sqPsn)
            .addressHandle(addressHandle).pathMtu(pathMtu).timeout(timeout).retryCnt(retryCnt).minRnrTimer(minRnrTimer)
            .maxRdAtomic(maxRdAtomic).maxDestRdAtomic(maxDestRdAtomic).accessFlags(accessFlags);
        return into.keepOnly(QpAttributes.STATE | QpTransitions.attributesOf(type))
            .sqDraining(state == QpState.SQD && sqOutstanding > 0);
    }

    /** Whether a send may be posted now: in RTS. */
    public boolean acceptsSends() {
        return state == QpState.RTS;
    }

    /** SQD's one SQ_DRAINED event, once nothing posted before the move is outstanding (and only if asked for). */
    private void raiseDrainedIfOwed() {
        if (drainedEventOwed && sqOutstanding == 0) {
            drainedEventOwed = false;
            if (state == QpState.SQD) { // not after a CQ overrun moved the QP to ERROR behind modify's back
                errors.raise(AsyncEventQueue.SQ_DRAINED, this);
            }
        }
    }

    /**
     * Sets the RNR retry count in any state: the short form SRD callers used before modify took
     * attributes (an SRD modify RTR -> RTS may set it too, as EFA's does).
     */
    public void rnrRetry(int retries) {
        if (retries < 0 || retries > 7) {
            throw new IllegalArgumentException("rnr_retry is 0..7 (7 = infinite in verbs; here 7 retries), was " + retries);
        }
        this.rnrRetry = retries;
    }

    /**
     * Posts a receive; false if the receive queue is full. Throws if the QP cannot take receives,
     * and if it takes them from an SRQ (as verbs refuses ibv_post_recv on such a QP with EINVAL).
     */
    public boolean postReceive(long wrId, MemorySegment buffer, long offset, int length) {
        return postReceive(wrId, buffer, offset, length, 0);
    }

    /**
     * Posts a receive of memory region {@code lkey} (a key from the device's memory regions, or
     * 0 for memory no region names): if the region is deregistered before a message arrives, the
     * receive completes LOCAL_PROTECTION_ERROR instead of taking it. False when the queue is full.
     */
    public boolean postReceive(long wrId, MemorySegment buffer, long offset, int length, int lkey) {
        if (srq != null) {
            throw new IllegalStateException("QP " + qpn + " takes its receives from SRQ " + srq.srqn() + ": post them to the SRQ");
        }
        if (type == QpType.SRC) {
            throw new IllegalStateException("SRC QP " + qpn + " has no receive queue: each message takes its receive from the SRC SRQ it"
                + " names; post receives to that SRQ");
        }
        if (!destroyed && state == QpState.ERROR) {
            // As verbs: a receive posted to a QP in ERROR is accepted and flushed (the transport may have
            // moved the QP there before the poster could know).
            if (!recvCq.push(wrId, WcStatus.WR_FLUSH_ERROR, WcOpcode.RECV, 0, false, 0, qpn, 0, 0)) {
                errors.onCqOverrun(recvCq);
            }
            return true;
        }
        if (destroyed || !state.canPostReceive()) {
            throw new IllegalStateException("QP " + qpn + " is " + (destroyed ? "destroyed" : state) + ": receives need INIT, RTR or RTS");
        }
        ReceiveQueue.checkInside(buffer, offset, length);
        return receives.offer(wrId, buffer, offset, length, lkey);
    }

    /** The shared receive queue this QP takes its receives from, or null when it has a receive queue of its own. */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /**
     * Makes a QP just created take its receives from {@code srq}: its own receive queue is replaced
     * by the SRQ's ring, so delivery takes from there with no test on the data path.
     */
    public void takeReceivesFrom(SharedReceiveQueue shared) {
        shared.attach();
        this.srq = shared;
        this.receives = shared.receives;
    }

    /** Whether flushing this QP may complete its receives: not an SRQ's, which stay for the other QPs (an SRC QP has none). */
    public boolean ownsReceives() {
        return srq == null && type != QpType.SRC;
    }

    /** SRC: the QP's SRC domain; null for other types. */
    public SrcMembership srcDomain() {
        return srcDomain;
    }

    /** Receives posted and not yet consumed (on an SRQ: the SRQ's, for every QP that uses it). */
    public int receivesPosted() {
        return receives.size();
    }

    /** Send work requests posted and not yet completed. */
    public int sendsOutstanding() {
        return sqOutstanding;
    }

    /** Whether {@link #destroy} ran. */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** Destroys the QP: its pending sends are aborted (no completions), others on the same contexts unaffected. */
    public void destroy() {
        if (!destroyed) {
            errors.destroy(this);
            if (srq != null) {
                srq.detach();
            }
            if (srcDomain != null) {
                srcDomain.detachQp();
            }
        }
    }

    /** Told when the transport is done with a send's buffer (any status, signaled or not). */
    @FunctionalInterface
    public interface SendReleaseListener {
        void released(MemorySegment buffer, long offset);
    }

    private SendReleaseListener releaseListener;

    /** Lets the layer above recycle staging buffers it gathered a send into. */
    public void onSendRelease(SendReleaseListener listener) {
        this.releaseListener = listener;
    }

    /** A post the transport refused (a race with destroy or modify): its buffer is released at once. */
    public void onPostRefused(MemorySegment buffer, long offset) {
        released(buffer, offset);
    }

    public void released(MemorySegment buffer, long offset) {
        if (releaseListener != null) {
            releaseListener.released(buffer, offset);
        }
    }

    /** Whether no receive is posted for an arriving message to take (an RNR drop, counted on the QP). */
    public boolean lacksReceive() {
        if (receives.isEmpty()) {
            rnrDrops++;
            return true;
        }
        return false;
    }

    /**
     * A message is taken only if its receive completion fits: one that would overrun the CQ is
     * refused (never acknowledged as delivered) and, as in verbs, the CQ goes to error and its QPs
     * to ERROR.
     */
    public boolean receiveCompletionWouldOverrun() {
        if (!recvCq.isFull()) {
            return false;
        }
        errors.onCqOverrun(recvCq);
        return true;
    }

    /**
     * Whether the next receive's memory region was deregistered after it was posted; if so the
     * receive is taken and completes LOCAL_PROTECTION_ERROR (the message does not land; counted as
     * {@code receives_region_gone}).
     */
    public boolean failReceiveIfMemoryGone() {
        if (!receives.headMemoryGone(device.regions())) {
            return false;
        }
        long wrId = receives.headWrId();
        receives.removeHead();
        device.counters().receivesRegionGone++;
        if (!recvCq.push(wrId, WcStatus.LOCAL_PROTECTION_ERROR, WcOpcode.RECV, 0, false, 0, qpn, 0, 0)) {
            errors.onCqOverrun(recvCq);
        }
        return true;
    }

    /** Takes the next receive for a delivered message and completes it successfully (the caller checked it fits). */
    public void completeReceive(int opcode, int length, boolean hasImmediate, int immediate, int sourceQpn, int sourceIp) {
        long wrId = receives.headWrId();
        receives.removeHead();
        recvCq.push(wrId, WcStatus.SUCCESS, opcode, length, hasImmediate, immediate, qpn, sourceQpn, sourceIp);
        device.counters().delivered++;
    }

    public void completeSend(long wrId, int opcode, int status, int length, boolean signaled) {
        sqOutstanding--;
        // Errors are always reported; successes only when the WR asked to be signaled (as in verbs).
        if ((signaled || status != WcStatus.SUCCESS) && !sendCq.push(wrId, status, opcode, length, false, 0, qpn, 0, 0)) {
            errors.onCqOverrun(sendCq);
        }
        raiseDrainedIfOwed(); // after the completion: whoever sees the event finds every send's completion in the CQ
    }
}
