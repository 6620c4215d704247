package io.srdnic.srd.transport;

/** The queue-pair types one transport carries side by side on the same dataplane. */
public enum QpType {
    /** Scalable Reliable Datagram: acknowledged, retransmitted, at most once, out of order. */
    SRD,
    /** Unreliable Datagram: sent once, never acknowledged; the send completes when it leaves. */
    UD,
    /**
     * Reliable Connection: connected to one remote QP, in order, segmented by the path MTU. Its
     * state machine and attributes are here; its data path is not yet (posts are refused).
     */
    RC
}
