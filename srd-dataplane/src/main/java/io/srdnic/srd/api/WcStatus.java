package io.srdnic.srd.api;

/**
 * Work completion statuses: the seed's §3.3.1 list for SRD send work requests, plus
 * REMOTE_UNRESPONSIVE (an extension, as EFA has one) for requests whose retry budget ran out.
 * Int constants, not an enum, so completions are plain ints on the data path.
 */
public final class WcStatus {
    public static final int SUCCESS = 0;
    /** The sum of the data segment lengths exceeds the SRD MTU. */
    public static final int LOCAL_LENGTH_ERROR = 1;
    /** An internal QP consistency error. */
    public static final int LOCAL_QP_OPERATION_ERROR = 2;
    /** A data segment does not reference a memory region valid for the operation. */
    public static final int LOCAL_PROTECTION_ERROR = 3;
    /** Outstanding when the QP went to ERROR, or its address handle was destroyed. */
    public static final int WR_FLUSH_ERROR = 4;
    /** An unexpected transport opcode came back from the responder. */
    public static final int BAD_RESPONSE_ERROR = 5;
    /** The responder found the request invalid (Q_Key mismatch, an operation the QP does not support). */
    public static final int REMOTE_INVALID_REQUEST_ERROR = 6;
    /** The responder could not complete it (the message does not fit the posted receive). */
    public static final int REMOTE_OPERATION_ERROR = 7;
    /** SRD: the destination QP does not exist or is not able to receive. */
    public static final int BAD_DEST_QP_ERROR = 8;
    /** SRD: the destination QP had no receive posted (after the QP's RNR retries, 0 by default). */
    public static final int RNR_ERROR = 9;
    /** Extension: no acknowledgement within the retry budget (EFA reports the same). */
    public static final int REMOTE_UNRESPONSIVE = 10;
    /**
     * The responder's memory protection refused an RDMA request: bad rkey, a region of another
     * protection domain, out of its bounds, a missing access flag, or deregistered meanwhile.
     */
    public static final int REMOTE_ACCESS_ERROR = 11;
    /**
     * RC: a packet went unacknowledged through retry_cnt retransmissions and the local ACK timeout
     * (IBV_WC_RETRY_EXC_ERR); the QP is in ERROR.
     */
    public static final int RETRY_EXCEEDED_ERROR = 12;
    /** RC: the responder kept answering RNR NAK past rnr_retry (IBV_WC_RNR_RETRY_EXC_ERR); the QP is in ERROR. */
    public static final int RNR_RETRY_EXCEEDED_ERROR = 13;

    private static final String[] NAMES = {"SUCCESS", "LOCAL_LENGTH_ERROR", "LOCAL_QP_OPERATION_ERROR",
        "LOCAL_PROTECTION_ERROR", "WR_FLUSH_ERROR", "BAD_RESPONSE_ERROR", "REMOTE_INVALID_REQUEST_ERROR",
        "REMOTE_OPERATION_ERROR", "BAD_DEST_QP_ERROR", "RNR_ERROR", "REMOTE_UNRESPONSIVE",
        "REMOTE_ACCESS_ERROR", "RETRY_EXCEEDED_ERROR", "RNR_RETRY_EXCEEDED_ERROR"};

    public static final int COUNT = NAMES.length;

    private WcStatus() {
    }

    public static String name(int status) {
        return status >= 0 && status < NAMES.length ? NAMES[status] : "status" + status;
    }
}
