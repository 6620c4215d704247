package io.srdnic.verbs.cm;

/** What a {@link CmEvent} reports (rdma_cm_event_type, the ones this CM raises). */
public enum CmEventType {
    /** {@link CmId#resolveAddr}: the destination is known (its MAC is learnt from its first answer). */
    ADDR_RESOLVED,
    /** {@link CmId#resolveRoute}: the path is known; the id may connect. */
    ROUTE_RESOLVED,
    /** On a listener's channel: a peer asks to connect; the event's id is a new id to accept or reject. */
    CONNECT_REQUEST,
    /** The connection is up: the QP is in RTS on both sides (the active side has the passive side's private data). */
    ESTABLISHED,
    /** The peer (or its CM) refused: {@link CmEvent#status()} is the reason ({@link RejectReason}), with its private data. */
    REJECTED,
    /** No answer within the CM's retries: the peer is gone, or never was. */
    UNREACHABLE,
    /** The connection is down (either side disconnected); the QP is in ERROR. */
    DISCONNECTED,
    /** The id has left TIMEWAIT: its QP number and communication id may be reused. */
    TIMEWAIT_EXIT,
    /** The context the id is bound to was closed. */
    DEVICE_REMOVAL
}
