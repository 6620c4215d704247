package io.srdnic.verbs.cm;

/** Where a CM id is in its life (IBTA's CM states, the ones this CM has, plus rdma_cm's address states). */
enum CmState {
    IDLE,
    BOUND,
    LISTEN,
    ADDR_RESOLVED,
    ROUTE_RESOLVED,
    /** Active: REQ sent, waiting for REP or REJ. */
    REQ_SENT,
    /** Passive: REQ received and reported, waiting for the application to accept or reject. */
    REQ_RCVD,
    /** Passive: REP sent, waiting for RTU. */
    REP_SENT,
    ESTABLISHED,
    /** DREQ sent, waiting for DREP. */
    DREQ_SENT,
    TIMEWAIT,
    /** Over: rejected, unreachable, out of TIMEWAIT, or its device removed. Only destroy is left. */
    DONE,
    DESTROYED
}
