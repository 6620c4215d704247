package io.srdnic.srd.api;

import java.util.StringJoiner;

/**
 * The attributes of a QP modify or query, with the mask that says which are set (ibv_qp_attr and its
 * attr_mask in one object). Each setter sets its value and its mask bit; {@link #clear()} empties the
 * mask, so one instance can be reused for every modify of a QP's life:
 * <pre>{@code
 * QpAttributes a = new QpAttributes();
 * qp.modify(a.clear().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(QpAttributes.ACCESS_REMOTE_WRITE));
 * qp.modify(a.clear().state(QpState.RTR).addressHandle(ah).pathMtu(4096).destQpn(remoteQpn).rqPsn(remotePsn)
 *     .maxDestRdAtomic(1).minRnrTimer(12));
 * qp.modify(a.clear().state(QpState.RTS).sqPsn(localPsn).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
 * }</pre>
 * Which attributes a transition requires and which it accepts is {@code QpTransitions}' table; the
 * values are checked when the modify runs, so a bad one fails there with a message naming it. The
 * mask bits have ibv_qp_attr_mask's values, so code that knows verbs reads them as it expects.
 */
public final class QpAttributes {
    /** The state to move to (IBV_QP_STATE); without it a modify changes attributes in the current state. */
    public static final int STATE = 1;
    /** The state the caller believes the QP is in (IBV_QP_CUR_STATE): the modify fails if it is not. */
    public static final int CUR_STATE = 1 << 1;
    /** RTS → SQD only: raise SQ_DRAINED once the send queue has drained (IBV_QP_EN_SQD_ASYNC_NOTIFY). */
    public static final int SQ_DRAINED_NOTIFY = 1 << 2;
    /** Which remote operations the responder allows (IBV_QP_ACCESS_FLAGS): the ACCESS_REMOTE_* flags. */
    public static final int ACCESS_FLAGS = 1 << 3;
    /** Index into the P_Key table (IBV_QP_PKEY_INDEX): the table has one entry, index 0. */
    public static final int PKEY_INDEX = 1 << 4;
    /** The port (IBV_QP_PORT): a device has one, port 1. */
    public static final int PORT = 1 << 5;
    /** UD and SRD: the Q_Key a message must carry to be delivered here (IBV_QP_QKEY). */
    public static final int QKEY = 1 << 6;
    /** RC: the path to the remote QP, an address handle of this transport (IBV_QP_AV). */
    public static final int ADDRESS_HANDLE = 1 << 7;
    /** RC: the payload bytes per packet, 256..4096 and not above the device MTU (IBV_QP_PATH_MTU). */
    public static final int PATH_MTU = 1 << 8;
    /** RC: local ACK timeout exponent, 4.096 µs × 2^timeout, 0 = infinite (IBV_QP_TIMEOUT); see {@code LocalAckTimeout}. */
    public static final int TIMEOUT = 1 << 9;
    /** RC: how often a request is retransmitted after a timeout before it fails, 0..7 (IBV_QP_RETRY_CNT). */
    public static final int RETRY_CNT = 1 << 10;
    /** RC and SRD: how often a request is retried after an RNR, 0..7; on RC 7 = infinite (IBV_QP_RNR_RETRY). */
    public static final int RNR_RETRY = 1 << 11;
    /** RC: the first PSN expected from the remote QP (IBV_QP_RQ_PSN). */
    public static final int RQ_PSN = 1 << 12;
    /** RC: RDMA READs and atomics this QP keeps outstanding as requester (IBV_QP_MAX_QP_RD_ATOMIC). */
    public static final int MAX_RD_ATOMIC = 1 << 13;
    /** RC: the RNR NAK timer code this QP sends as responder, 0..31 (IBV_QP_MIN_RNR_TIMER); see {@code RnrTimer}. */
    public static final int MIN_RNR_TIMER = 1 << 15;
    /** The first PSN this QP sends (IBV_QP_SQ_PSN); SRD and UD take it as verbs asks and number per context instead. */
    public static final int SQ_PSN = 1 << 16;
    /** RC: RDMA READs and atomics this QP accepts outstanding as responder (IBV_QP_MAX_DEST_RD_ATOMIC). */
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    /** RC: the remote QP's number (IBV_QP_DEST_QPN). */
    public static final int DEST_QPN = 1 << 20;

    /** Every mask bit above, in ascending order (for messages and loops). */
    static final int[] ALL = {STATE, CUR_STATE, SQ_DRAINED_NOTIFY, ACCESS_FLAGS, PKEY_INDEX, PORT, QKEY, ADDRESS_HANDLE, PATH_MTU,
        TIMEOUT, RETRY_CNT, RNR_RETRY, RQ_PSN, MAX_RD_ATOMIC, MIN_RNR_TIMER, SQ_PSN, MAX_DEST_RD_ATOMIC, DEST_QPN};

    /** Access flag: the remote may RDMA WRITE into this QP's memory (IBV_ACCESS_REMOTE_WRITE). */
    public static final int ACCESS_REMOTE_WRITE = 1 << 1;
    /** Access flag: the remote may RDMA READ this QP's memory (IBV_ACCESS_REMOTE_READ). */
    public static final int ACCESS_REMOTE_READ = 1 << 2;
    /** Access flag: the remote may run atomics on this QP's memory (IBV_ACCESS_REMOTE_ATOMIC). */
    public static final int ACCESS_REMOTE_ATOMIC = 1 << 3;
    /** The most RDMA READs and atomics a QP may have outstanding either way (max_rd_atomic, max_dest_rd_atomic). */
    public static final int RD_ATOMIC_LIMIT = 16;
    /** The address handle of no remote: handle 0 is never issued. */
    public static final int NO_ADDRESS_HANDLE = 0;

    private int mask;
    private QpState state;
    private QpState curState;
    private boolean sqDrainedNotify;
    private int accessFlags;
    private int pkeyIndex;
    private int port;
    private int qkey;
    private int addressHandle;
    private int pathMtu;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private int rqPsn;
    private int maxRdAtomic;
    private int minRnrTimer;
    private int sqPsn;
    private int maxDestRdAtomic;
    private int destQpn;
    private boolean sqDraining;

    /** A copy with the same mask and values: for a layer above that completes a caller's attributes without changing them. */
    public QpAttributes copy() {
        QpAttributes c = new QpAttributes();
        c.mask = mask;
        c.state = state;
        c.curState = curState;
        c.sqDrainedNotify = sqDrainedNotify;
        c.accessFlags = accessFlags;
        c.pkeyIndex = pkeyIndex;
        c.port = port;
        c.qkey = qkey;
        c.addressHandle = addressHandle;
        c.pathMtu = pathMtu;
        c.timeout = timeout;
        c.retryCnt = retryCnt;
        c.rnrRetry = rnrRetry;
        c.rqPsn = rqPsn;
        c.maxRdAtomic = maxRdAtomic;
        c.minRnrTimer = minRnrTimer;
        c.sqPsn = sqPsn;
        c.maxDestRdAtomic = maxDestRdAtomic;
        c.destQpn = destQpn;
        c.sqDraining = sqDraining;
        return c;
    }

    /** Empties the mask (the values stay, unread): the instance is ready for the next modify. */
    public QpAttributes clear() {
        mask = 0;
        sqDraining = false;
        return this;
    }

    /** The mask bits of the attributes set. */
    public int mask() {
        return mask;
    }

    /** Whether attribute {@code bit} (one of the mask constants) is set. */
    public boolean has(int bit) {
        return (mask & bit) != 0;
    }

    private QpAttributes set(int bit) {
        mask |= bit;
        return this;
    }

    public QpAttributes state(QpState value) {
        state = requireState(value, "state");
        return set(STATE);
    }

    public QpAttributes curState(QpState value) {
        curState = requireState(value, "curState");
        return set(CUR_STATE);
    }

    private static QpState requireState(QpState value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " cannot be null: leave it unset instead");
        }
        return value;
    }

    /** On RTS → SQD: whether to raise SQ_DRAINED when the last send posted before has completed. */
    public QpAttributes sqDrainedNotify(boolean value) {
        sqDrainedNotify = value;
        return set(SQ_DRAINED_NOTIFY);
    }

    public QpAttributes accessFlags(int value) {
        accessFlags = value;
        return set(ACCESS_FLAGS);
    }

    public QpAttributes pkeyIndex(int value) {
        pkeyIndex = value;
        return set(PKEY_INDEX);
    }

    public QpAttributes port(int value) {
        port = value;
        return set(PORT);
    }

    public QpAttributes qkey(int value) {
        qkey = value;
        return set(QKEY);
    }

    /** The remote's address handle (the transport's number for it): RC's path. */
    public QpAttributes addressHandle(int value) {
        addressHandle = value;
        return set(ADDRESS_HANDLE);
    }

    /** In bytes: 256, 512, 1024, 2048 or 4096 (verbs' IBV_MTU_* codes are not taken). */
    public QpAttributes pathMtu(int value) {
        pathMtu = value;
        return set(PATH_MTU);
    }

    public QpAttributes timeout(int value) {
        timeout = value;
        return set(TIMEOUT);
    }

    public QpAttributes retryCnt(int value) {
        retryCnt = value;
        return set(RETRY_CNT);
    }

    public QpAttributes rnrRetry(int value) {
        rnrRetry = value;
        return set(RNR_RETRY);
    }

    public QpAttributes rqPsn(int value) {
        rqPsn = value;
        return set(RQ_PSN);
    }

    public QpAttributes maxRdAtomic(int value) {
        maxRdAtomic = value;
        return set(MAX_RD_ATOMIC);
    }

    public QpAttributes minRnrTimer(int value) {
        minRnrTimer = value;
        return set(MIN_RNR_TIMER);
    }

    public QpAttributes sqPsn(int value) {
        sqPsn = value;
        return set(SQ_PSN);
    }

    public QpAttributes maxDestRdAtomic(int value) {
        maxDestRdAtomic = value;
        return set(MAX_DEST_RD_ATOMIC);
    }

    public QpAttributes destQpn(int value) {
        destQpn = value;
        return set(DEST_QPN);
    }

    /** Drops every set attribute outside {@code keep} (a query keeps those of its QP's type). */
    public QpAttributes keepOnly(int keep) {
        mask &= keep;
        return this;
    }

    /** Query only: the QP is in SQD and sends posted before are still outstanding (ibv_qp_attr.sq_draining). */
    public QpAttributes sqDraining(boolean value) {
        sqDraining = value;
        return this;
    }

    public QpState state() {
        return state;
    }

    public QpState curState() {
        return curState;
    }

    public boolean sqDrainedNotify() {
        return sqDrainedNotify;
    }

    public int accessFlags() {
        return accessFlags;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public int port() {
        return port;
    }

    public int qkey() {
        return qkey;
    }

    public int addressHandle() {
        return addressHandle;
    }

    public int pathMtu() {
        return pathMtu;
    }

    public int timeout() {
        return timeout;
    }

    public int retryCnt() {
        return retryCnt;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public int rqPsn() {
        return rqPsn;
    }

    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    public int minRnrTimer() {
        return minRnrTimer;
    }

    public int sqPsn() {
        return sqPsn;
    }

    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    public int destQpn() {
        return destQpn;
    }

    /** From a query: whether the QP is in SQD with sends still outstanding (SQ_DRAINED not reached yet). */
    public boolean sqDraining() {
        return sqDraining;
    }

    /** The setter name of one mask bit, with its verbs name: what a message tells the caller to set or leave out. */
    public static String name(int bit) {
        return switch (bit) {
            case STATE -> "state (IBV_QP_STATE)";
            case CUR_STATE -> "curState (IBV_QP_CUR_STATE)";
            case SQ_DRAINED_NOTIFY -> "sqDrainedNotify (IBV_QP_EN_SQD_ASYNC_NOTIFY)";
            case ACCESS_FLAGS -> "accessFlags (IBV_QP_ACCESS_FLAGS)";
            case PKEY_INDEX -> "pkeyIndex (IBV_QP_PKEY_INDEX)";
            case PORT -> "port (IBV_QP_PORT)";
            case QKEY -> "qkey (IBV_QP_QKEY)";
            case ADDRESS_HANDLE -> "addressHandle (IBV_QP_AV)";
            case PATH_MTU -> "pathMtu (IBV_QP_PATH_MTU)";
            case TIMEOUT -> "timeout (IBV_QP_TIMEOUT)";
            case RETRY_CNT -> "retryCnt (IBV_QP_RETRY_CNT)";
            case RNR_RETRY -> "rnrRetry (IBV_QP_RNR_RETRY)";
            case RQ_PSN -> "rqPsn (IBV_QP_RQ_PSN)";
            case MAX_RD_ATOMIC -> "maxRdAtomic (IBV_QP_MAX_QP_RD_ATOMIC)";
            case MIN_RNR_TIMER -> "minRnrTimer (IBV_QP_MIN_RNR_TIMER)";
            case SQ_PSN -> "sqPsn (IBV_QP_SQ_PSN)";
            case MAX_DEST_RD_ATOMIC -> "maxDestRdAtomic (IBV_QP_MAX_DEST_RD_ATOMIC)";
            case DEST_QPN -> "destQpn (IBV_QP_DEST_QPN)";
            default -> "attribute bit 0x" + Integer.toHexString(bit);
        };
    }

    /** The names of every bit in {@code mask}, comma-separated, or "nothing". */
    public static String names(int mask) {
        StringJoiner out = new StringJoiner(", ");
        for (int bit : ALL) {
            if ((mask & bit) != 0) {
                out.add(name(bit));
            }
        }
        return out.length() == 0 ? "nothing" : out.toString();
    }
}
