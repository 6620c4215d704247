package io.srdnic.srd.api;

/** The queue-pair types one transport carries side by side on the same dataplane. */
public enum QpType {
    /** Scalable Reliable Datagram: acknowledged, retransmitted, at most once, out of order. */
    SRD,
    /** Unreliable Datagram: sent once, never acknowledged; the send completes when it leaves. */
    UD,
    /** Reliable Connection: connected to one remote QP, in order, segmented by the path MTU. */
    RC,
    /**
     * Scalable Reliable Connection (seed 001, the precursor of XRC): an RC connection whose
     * messages each name the responder's SRQ they are for, so that one send queue reaches every
     * job of a remote node. RC's attributes, state machine and wire rules, plus a required
     * {@code SrcDomain}; no SRQ and no receive queue of its own.
     */
    SRC;

    /** Whether QPs of this type are connected to one remote QP and run RC's message layer (RC and SRC). */
    public boolean connected() {
        return this == RC || this == SRC;
    }
}
