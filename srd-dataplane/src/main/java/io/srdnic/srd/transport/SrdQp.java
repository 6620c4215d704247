package io.srdnic.srd.transport;

import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;

/**
 * One queue pair (SRD, or UD for comparison) inside a transport: its number, Q_Key, state, RNR retry count, send-queue
 * depth and receive queue (its own, or a {@link SharedReceiveQueue}), and the completion queues it reports to. Many QPs share each SRD
 * context; a QP's failures never disturb the context or other QPs.
 */
public final class SrdQp {
    /** The seed: "Requester does not perform any retries" on SRD RNR, unless the QP asks for them. */
    public static final int DEFAULT_RNR_RETRY = 0;

    final SrdTransport transport;
    final QpType type;
    final int qpn;
    /** The protection domain: RDMA requests to this QP may name only this domain's memory regions. */
    final int pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    /** Where messages find their receives: the QP's own ring, or its SRQ's. */
    ReceiveQueue receives;
    SharedReceiveQueue srq;
    final int sqDepth;
    int qkey;
    int rnrRetry = DEFAULT_RNR_RETRY;
    QpState state = QpState.RESET;
    int sqOutstanding;
    boolean destroyed;
    long rnrDrops;

    SrdQp(SrdTransport transport, QpType type, int qpn, int pd, int sqDepth, int rqDepth, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.transport = transport;
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

    /** Moves the QP to {@code next} following UD's transitions; throws on an illegal one. */
    public void modify(QpState next, int newQkey) {
        boolean legal = switch (next) {
            case RESET, ERROR -> true;
            case INIT -> state == QpState.RESET || state == QpState.INIT;
            case RTR -> state == QpState.INIT;
            case RTS -> state == QpState.RTR || state == QpState.RTS;
        };
        if (!legal || destroyed) {
            throw new IllegalStateException("QP " + qpn + ": illegal transition " + state + " -> " + next);
        }
        if (next == QpState.INIT) {
            qkey = newQkey;
        }
        state = next;
        if (next == QpState.ERROR || next == QpState.RESET) {
            transport.flushQp(this, next == QpState.ERROR);
        }
    }

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
        if (srq != null) {
            throw new IllegalStateException("QP " + qpn + " takes its receives from SRQ " + srq.srqn() + ": post them to the SRQ");
        }
        if (destroyed || !state.canPostReceive()) {
            throw new IllegalStateException("QP " + qpn + " is " + (destroyed ? "destroyed" : state) + ": receives need INIT, RTR or RTS");
        }
        ReceiveQueue.checkInside(buffer, offset, length);
        return receives.offer(wrId, buffer, offset, length);
    }

    /** The shared receive queue this QP takes its receives from, or null when it has a receive queue of its own. */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /**
     * Makes a QP just created take its receives from {@code srq}: its own receive queue is replaced
     * by the SRQ's ring, so delivery takes from there with no test on the data path.
     */
    void takeReceivesFrom(SharedReceiveQueue shared) {
        shared.attach();
        this.srq = shared;
        this.receives = shared.receives;
    }

    /** Whether flushing this QP may complete its receives: not an SRQ's, which stay for the other QPs. */
    boolean ownsReceives() {
        return srq == null;
    }

    /** Receives posted and not yet consumed (on an SRQ: the SRQ's, for every QP that uses it). */
    public int receivesPosted() {
        return receives.size();
    }

    /** Send work requests posted and not yet completed. */
    public int sendsOutstanding() {
        return sqOutstanding;
    }

    /** Destroys the QP: its pending sends are aborted (no completions), others on the same contexts unaffected. */
    public void destroy() {
        if (!destroyed) {
            transport.destroyQp(this);
            if (srq != null) {
                srq.detach();
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

    void released(MemorySegment buffer, long offset) {
        if (releaseListener != null) {
            releaseListener.released(buffer, offset);
        }
    }

    void completeSend(long wrId, int opcode, int status, int length, boolean signaled) {
        sqOutstanding--;
        // Errors are always reported; successes only when the WR asked to be signaled (as in verbs).
        if ((signaled || status != WcStatus.SUCCESS) && !sendCq.push(wrId, status, opcode, length, false, 0, qpn, 0, 0)) {
            transport.onCqOverrun(sendCq);
        }
    }
}
