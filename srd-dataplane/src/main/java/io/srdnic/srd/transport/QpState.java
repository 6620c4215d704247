package io.srdnic.srd.transport;

/** The UD queue-pair state machine, which SRD QPs share (seed §3.1.1.1). */
public enum QpState {
    RESET, INIT, RTR, RTS, ERROR;

    /** Whether a receive may be posted: from INIT on, as in UD. */
    boolean canPostReceive() {
        return this == INIT || this == RTR || this == RTS;
    }

    /** Whether an arriving message may be delivered. */
    boolean canReceive() {
        return this == RTR || this == RTS;
    }
}
