package io.srdnic.verbs.cm;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.verbs.VerbsException;

/**
 * Connection parameters (rdma_conn_param), made once and reused: private data, the RDMA reads and
 * atomics this side serves (responder resources) and issues (initiator depth), and the QP's retry
 * counts. The QP itself is the id's ({@link CmId#createQp} or {@link CmId#attachQp}).
 */
public final class ConnParam {
    /** The most private data a connect carries: IBTA's REQ has 92 bytes, rdma_cm keeps 36 for its own header. */
    public static final int CONNECT_PRIVATE_DATA = 56;
    /** The most private data an accept carries (IBTA's REP). */
    public static final int ACCEPT_PRIVATE_DATA = 196;
    /** The most private data a reject carries (IBTA's REJ). */
    public static final int REJECT_PRIVATE_DATA = 148;

    final byte[] privateData = new byte[ACCEPT_PRIVATE_DATA];
    int privateDataLength;
    int responderResources = 1;
    int initiatorDepth = 1;
    int retryCount = 7;
    int rnrRetryCount = 7;

    /** Copies {@code length} bytes of {@code data} from {@code offset} as the private data (checked against the limit when used). */
    public ConnParam privateData(byte[] data, int offset, int length) {
        if (length < 0 || length > privateData.length) {
            throw new VerbsException("private data is 0.." + ACCEPT_PRIVATE_DATA + " bytes, was " + length);
        }
        System.arraycopy(data, offset, privateData, 0, length);
        privateDataLength = length;
        return this;
    }

    public ConnParam privateData(byte[] data) {
        return privateData(data, 0, data.length);
    }

    /** RDMA reads and atomics this side serves at once (its QP's max_dest_rd_atomic), 0..16. */
    public ConnParam responderResources(int n) {
        this.responderResources = range(n, QpAttributes.RD_ATOMIC_LIMIT, "responder resources");
        return this;
    }

    /** RDMA reads and atomics this side has outstanding at once (its QP's max_rd_atomic), 0..16. */
    public ConnParam initiatorDepth(int n) {
        this.initiatorDepth = range(n, QpAttributes.RD_ATOMIC_LIMIT, "initiator depth");
        return this;
    }

    /** Transport retries of the active side's QP (retry_cnt), 0..7. */
    public ConnParam retryCount(int n) {
        this.retryCount = range(n, 7, "retry count");
        return this;
    }

    /** RNR retries the peer's QP makes against this side (rnr_retry), 0..7 (7: for ever). */
    public ConnParam rnrRetryCount(int n) {
        this.rnrRetryCount = range(n, 7, "RNR retry count");
        return this;
    }

    public int privateDataLength() {
        return privateDataLength;
    }

    void checkPrivateData(int limit, String what) {
        if (privateDataLength > limit) {
            throw new VerbsException(what + " carries at most " + limit + " bytes of private data, was " + privateDataLength);
        }
    }

    /** The private data of a reject (rdma_reject): at most {@link #REJECT_PRIVATE_DATA} bytes. */
    static void checkRejectData(int length) {
        if (length < 0 || length > REJECT_PRIVATE_DATA) {
            throw new VerbsException("a reject carries at most " + REJECT_PRIVATE_DATA + " bytes of private data, was " + length);
        }
    }

    private static int range(int n, int max, String what) {
        if (n < 0 || n > max) {
            throw new VerbsException(what + " must be 0.." + max + ", was " + n);
        }
        return n;
    }
}
