package io.srdnic.srd.wire;

/**
 * Why a responder dropped a packet that passed the transport checks but failed the QP checks.
 * Carried in ACK drop entries; the requester completes the work request with the matching status
 * and does not retry (except RNR when the QP's RNR retry count allows).
 */
public final class DropReason {
    /** The destination QP does not exist, is not ready to receive (before RTR) or is in ERROR. */
    public static final int BAD_DEST_QP = 1;
    /** The destination QP has no receive posted. */
    public static final int RNR = 2;
    /** The message does not fit the posted receive (a receive WQE the message cannot use). */
    public static final int REMOTE_OPERATION = 3;
    /** The request is invalid for this QP: Q_Key mismatch or an operation it does not support. */
    public static final int REMOTE_INVALID_REQUEST = 4;
    /**
     * An RDMA request the responder's memory protection refused: no region with that rkey, a region
     * of another protection domain, outside the region, or without the access the operation needs.
     * Nothing in the responder's memory changed.
     */
    public static final int REMOTE_ACCESS = 5;
    /**
     * RC only, not an error: a packet arrived ahead of the PSN the responder expects, which the drop
     * entry names (IB's NAK sequence error, sent once per gap): the requester sends again what it
     * sent from that PSN before the packet that revealed the gap, and completes nothing with it.
     */
    public static final int PSN_SEQUENCE = 6;
    /** The highest reason: counters and checks run over BAD_DEST_QP..MAX. */
    public static final int MAX = PSN_SEQUENCE;

    private DropReason() {
    }

    public static boolean isValid(int reason) {
        return reason >= BAD_DEST_QP && reason <= MAX;
    }

    public static String name(int reason) {
        return switch (reason) {
            case BAD_DEST_QP -> "BAD_DEST_QP";
            case RNR -> "RNR";
            case REMOTE_OPERATION -> "REMOTE_OPERATION";
            case REMOTE_INVALID_REQUEST -> "REMOTE_INVALID_REQUEST";
            case REMOTE_ACCESS -> "REMOTE_ACCESS";
            case PSN_SEQUENCE -> "PSN_SEQUENCE";
            default -> "reason" + reason;
        };
    }
}
