package io.srdnic.srd.api;

import java.util.ArrayDeque;

/**
 * Asynchronous events (seed §3.3.2.1 and the verbs events they mirror). Rare by nature (once per
 * episode), so a plain queue of small records is fine here; the data path never touches it.
 */
public final class AsyncEventQueue {
    /** Unaffiliated: the local transport timeout was exceeded sending to a destination; its context is unaffected. */
    public static final int REMOTE_UNRESPONSIVE = 1;
    /**
     * A completion queue overran (IBV_EVENT_CQ_ERR): a completion did not fit, so the CQ is in error
     * and every QP reporting to it went to ERROR (each also raises {@link #QP_FATAL}).
     */
    public static final int CQ_ERROR = 2;
    /** A QP went to ERROR on its own (IBV_EVENT_QP_FATAL): its CQ overran. {@code qpn} names it. */
    public static final int QP_FATAL = 3;
    /**
     * A shared receive queue's posted receives dropped below the limit it was armed with
     * (IBV_EVENT_SRQ_LIMIT_REACHED): raised once, then the limit is disarmed until the application
     * sets one again. {@code srqn} names the SRQ.
     */
    public static final int SRQ_LIMIT_REACHED = 4;
    /**
     * A QP moved to SQD with sqDrainedNotify has no send outstanding any more (IBV_EVENT_SQ_DRAINED):
     * it may now be modified, or moved back to RTS. Raised once per such move. {@code qpn} names it.
     */
    public static final int SQ_DRAINED = 5;
    /**
     * The device is gone (IBV_EVENT_DEVICE_FATAL): an attached context's dataplane process died or
     * dropped the context. Every later call on the context fails; reopen it once the dataplane is back.
     */
    public static final int DEVICE_FATAL = 6;

    /**
     * One event: its type, the address handle concerned (REMOTE_UNRESPONSIVE: the one the oldest
     * stalled request used), the remote, the QP (QP_FATAL, SQ_DRAINED), the shared receive queue
     * (SRQ_LIMIT_REACHED), and when.
     */
    public record AsyncEvent(int type, int addressHandle, int remoteIp, int qpn, int srqn, long timeNanos) {
        public String typeName() {
            return switch (type) {
                case REMOTE_UNRESPONSIVE -> "REMOTE_UNRESPONSIVE";
                case CQ_ERROR -> "CQ_ERROR";
                case QP_FATAL -> "QP_FATAL";
                case SRQ_LIMIT_REACHED -> "SRQ_LIMIT_REACHED";
                case SQ_DRAINED -> "SQ_DRAINED";
                case DEVICE_FATAL -> "DEVICE_FATAL";
                default -> "event" + type;
            };
        }
    }

    private final ArrayDeque<AsyncEvent> events = new ArrayDeque<>();
    private long raised;

    public void raise(int type, int addressHandle, int remoteIp, long now) {
        raise(type, addressHandle, remoteIp, 0, now);
    }

    public void raise(int type, int addressHandle, int remoteIp, int qpn, long now) {
        add(new AsyncEvent(type, addressHandle, remoteIp, qpn, 0, now));
    }

    /** An event about shared receive queue {@code srqn} (SRQ_LIMIT_REACHED). */
    public void raiseForSrq(int type, int srqn, long now) {
        add(new AsyncEvent(type, 0, 0, 0, srqn, now));
    }

    private void add(AsyncEvent event) {
        events.add(event);
        raised++;
    }

    /** The next event, or null. */
    public AsyncEvent poll() {
        return events.poll();
    }

    public long raised() {
        return raised;
    }
}
