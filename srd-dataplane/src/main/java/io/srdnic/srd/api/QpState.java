package io.srdnic.srd.api;

/**
 * The verbs queue-pair states, in ibv_qp_state's order. Which moves between them are legal, and
 * with which attributes, is {@code QpTransitions}' business; SRD QPs follow UD's (seed §3.1.1.1).
 */
public enum QpState {
    RESET, INIT, RTR, RTS,
    /** Send queue drained: no new sends are accepted; those already posted run to completion. */
    SQD,
    /** Send queue error (UD's state after a send error; no transport here enters it yet, see docs/qp-state-machine.md). */
    SQE,
    ERROR;

    /** Whether a receive may be posted: from INIT on, as in UD (an SQD or SQE QP still receives). */
    public boolean canPostReceive() {
        return this == INIT || this == RTR || this == RTS || this == SQD || this == SQE;
    }

    /** Whether an arriving message may be delivered: the receive side works in SQD and SQE as in RTS. */
    public boolean canReceive() {
        return this == RTR || this == RTS || this == SQD || this == SQE;
    }
}
