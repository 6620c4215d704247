package io.srdnic.verbs.cm;

/**
 * Why a connection was rejected: IBTA's CM reject reason codes (ib_cm_rej_reason), the ones this CM
 * sends. {@link CmEvent#status()} of a REJECTED event holds one.
 */
public final class RejectReason {
    /** The requester's QP could not be taken to RTR/RTS with what the REP said. */
    public static final int NO_QP = 1;
    /** The listener's backlog was full (IBTA: no resources). */
    public static final int NO_RESOURCES = 3;
    /** The peer gave up waiting for an answer (its REP went unanswered). */
    public static final int TIMEOUT = 4;
    /** A message named a communication id the receiver does not have (a late or stray REP). */
    public static final int INVALID_COMM_ID = 6;
    /** Nobody listens on the service id (IBTA: invalid service ID). */
    public static final int NO_LISTENER = 8;
    /**
     * The request's QP type is not the listener's (IBTA: invalid transport service type): an RC
     * request to an XRC listener, an XRC request to an RC one, or a reply of the other type.
     */
    public static final int INVALID_TRANSPORT_TYPE = 9;
    /** A request for a connection the receiver holds in TIMEWAIT (a late duplicate). */
    public static final int STALE_CONNECTION = 10;
    /** The application rejected ({@link CmId#reject}), or destroyed the id before answering. */
    public static final int CONSUMER_DEFINED = 28;

    private RejectReason() {
    }

    public static String name(int reason) {
        return switch (reason) {
            case NO_QP -> "QP could not be brought up";
            case NO_RESOURCES -> "backlog full (no resources)";
            case TIMEOUT -> "timeout";
            case INVALID_COMM_ID -> "invalid communication id";
            case NO_LISTENER -> "no listener (invalid service id)";
            case INVALID_TRANSPORT_TYPE -> "QP type mismatch (invalid transport service type)";
            case STALE_CONNECTION -> "stale connection";
            case CONSUMER_DEFINED -> "consumer defined";
            default -> "reason " + reason;
        };
    }
}
