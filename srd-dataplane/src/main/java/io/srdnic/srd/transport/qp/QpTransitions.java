package io.srdnic.srd.transport.qp;

import static io.srdnic.srd.api.QpAttributes.ACCESS_FLAGS;
import static io.srdnic.srd.api.QpAttributes.ADDRESS_HANDLE;
import static io.srdnic.srd.api.QpAttributes.CUR_STATE;
import static io.srdnic.srd.api.QpAttributes.DEST_QPN;
import static io.srdnic.srd.api.QpAttributes.MAX_DEST_RD_ATOMIC;
import static io.srdnic.srd.api.QpAttributes.MAX_RD_ATOMIC;
import static io.srdnic.srd.api.QpAttributes.MIN_RNR_TIMER;
import static io.srdnic.srd.api.QpAttributes.PATH_MTU;
import static io.srdnic.srd.api.QpAttributes.PKEY_INDEX;
import static io.srdnic.srd.api.QpAttributes.PORT;
import static io.srdnic.srd.api.QpAttributes.QKEY;
import static io.srdnic.srd.api.QpAttributes.RETRY_CNT;
import static io.srdnic.srd.api.QpAttributes.RNR_RETRY;
import static io.srdnic.srd.api.QpAttributes.RQ_PSN;
import static io.srdnic.srd.api.QpAttributes.SQ_DRAINED_NOTIFY;
import static io.srdnic.srd.api.QpAttributes.SQ_PSN;
import static io.srdnic.srd.api.QpAttributes.STATE;
import static io.srdnic.srd.api.QpAttributes.TIMEOUT;
import static io.srdnic.srd.api.QpState.ERROR;
import static io.srdnic.srd.api.QpState.INIT;
import static io.srdnic.srd.api.QpState.RESET;
import static io.srdnic.srd.api.QpState.RTR;
import static io.srdnic.srd.api.QpState.RTS;
import static io.srdnic.srd.api.QpState.SQD;
import static io.srdnic.srd.api.QpState.SQE;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import java.util.ArrayList;
import java.util.List;

/**
 * The verbs QP state machine: which moves are legal and, for each QP type, which attributes a move
 * requires and which it accepts, as the kernel's {@code qp_state_table} (drivers/infiniband/core/verbs.c)
 * has them for IB_QPT_UD (our UD and SRD, seed §3.1.1.1) and IB_QPT_RC (our RC, and SRC, whose attributes are RC's: seed 001). SRD also
 * takes {@code rnrRetry} on RTR → RTS, as EFA's SRD table does. Alternate paths (APM) are not offered, so
 * ALT_PATH and PATH_MIG_STATE, optional in the kernel's RC rows, have no bit here.
 * <p>
 * Every state may go to RESET and to ERROR with nothing but the state; the rest is the table below.
 * Values are checked by {@link QpAttributeChecks}; what the modify then does is {@link DeviceQp}'s.
 */
public final class QpTransitions {
    private static final int STATES = QpState.values().length;
    private static final boolean[][] LEGAL = new boolean[STATES][STATES];
    /** Indexed [rc ? 1 : 0][from][to]. */
    private static final int[][][] REQUIRED = new int[2][STATES][STATES];
    private static final int[][][] OPTIONAL = new int[2][STATES][STATES];
    /** What SRD accepts beyond UD's row, [from][to]. */
    private static final int[][] SRD_OPTIONAL = new int[STATES][STATES];

    static {
        for (QpState from : QpState.values()) {
            rule(from, RESET, 0, 0, 0, 0);
            rule(from, ERROR, 0, 0, 0, 0);
        }
        // rule(from, to, UD and SRD required, UD and SRD optional, RC required, RC optional)
        rule(RESET, INIT, PKEY_INDEX | PORT | QKEY, 0,
            PKEY_INDEX | PORT | ACCESS_FLAGS, 0);
        rule(INIT, INIT, 0, PKEY_INDEX | PORT | QKEY,
            0, PKEY_INDEX | PORT | ACCESS_FLAGS);
        rule(INIT, RTR, 0, PKEY_INDEX | QKEY,
            ADDRESS_HANDLE | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER, ACCESS_FLAGS | PKEY_INDEX);
        rule(RTR, RTS, SQ_PSN, CUR_STATE | QKEY,
            TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_RD_ATOMIC, CUR_STATE | ACCESS_FLAGS | MIN_RNR_TIMER);
        rule(RTS, RTS, 0, CUR_STATE | QKEY,
            0, CUR_STATE | ACCESS_FLAGS | MIN_RNR_TIMER);
        rule(RTS, SQD, 0, SQ_DRAINED_NOTIFY,
            0, SQ_DRAINED_NOTIFY);
        rule(SQD, RTS, 0, CUR_STATE | QKEY,
            0, CUR_STATE | ACCESS_FLAGS | MIN_RNR_TIMER);
        rule(SQD, SQD, 0, PKEY_INDEX | QKEY,
            0, PORT | ADDRESS_HANDLE | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_RD_ATOMIC | MAX_DEST_RD_ATOMIC | ACCESS_FLAGS | PKEY_INDEX
                | MIN_RNR_TIMER);
        rule(SQE, RTS, 0, CUR_STATE | QKEY,
            0, 0);
        SRD_OPTIONAL[RTR.ordinal()][RTS.ordinal()] = RNR_RETRY;
    }

    private static void rule(QpState from, QpState to, int udRequired, int udOptional, int rcRequired, int rcOptional) {
        int f = from.ordinal();
        int t = to.ordinal();
        LEGAL[f][t] = true;
        REQUIRED[0][f][t] = udRequired;
        OPTIONAL[0][f][t] = udOptional;
        REQUIRED[1][f][t] = rcRequired;
        OPTIONAL[1][f][t] = rcOptional;
    }

    private QpTransitions() {
    }

    /** Whether any QP may move from {@code from} to {@code to} (the legal moves are the same for every type). */
    public static boolean isLegal(QpState from, QpState to) {
        return LEGAL[from.ordinal()][to.ordinal()];
    }

    /** The attributes a {@code type} QP must be given to move from {@code from} to {@code to} (0 if the move is illegal). */
    public static int required(QpType type, QpState from, QpState to) {
        return REQUIRED[type.connected() ? 1 : 0][from.ordinal()][to.ordinal()];
    }

    /**
     * The attributes a {@code type} QP may be given on that move beyond the required ones. STATE is
     * not among them: it is what names the move.
     */
    public static int optional(QpType type, QpState from, QpState to) {
        int extra = type == QpType.SRD ? SRD_OPTIONAL[from.ordinal()][to.ordinal()] : 0;
        return OPTIONAL[type.connected() ? 1 : 0][from.ordinal()][to.ordinal()] | extra;
    }

    /**
     * Every attribute a {@code type} QP takes on some move, the state aside (what a query of it reports);
     * curState and sqDrainedNotify are instructions to one modify, not attributes the QP keeps.
     */
    public static int attributesOf(QpType type) {
        int all = 0;
        for (QpState from : QpState.values()) {
            for (QpState to : QpState.values()) {
                all |= required(type, from, to) | optional(type, from, to);
            }
        }
        return all & ~(CUR_STATE | SQ_DRAINED_NOTIFY);
    }

    /**
     * Checks a modify of a {@code type} QP now in {@code current}; returns the state it moves to
     * ({@code current} when the attributes set no state).
     *
     * @throws IllegalStateException    the move is illegal, or curState is set and is not the QP's state
     * @throws IllegalArgumentException an attribute the move requires is missing, or one it does not take is set
     */
    public static QpState check(QpType type, QpState current, QpAttributes attributes) {
        QpState next = attributes.has(STATE) ? attributes.state() : current;
        if (!isLegal(current, next)) {
            throw new IllegalStateException(type + " QP: illegal transition " + current + " -> " + next + "; from " + current
                + " a QP may go to " + legalTargets(current));
        }
        int given = attributes.mask() & ~STATE;
        int required = required(type, current, next);
        int allowed = required | optional(type, current, next);
        String move = type + " QP, " + current + " -> " + next + ": ";
        if ((given & required) != required) {
            throw new IllegalArgumentException(move + "missing " + QpAttributes.names(required & ~given)
                + "; set them on the QpAttributes passed to modify (this move requires " + QpAttributes.names(required) + ")");
        }
        if ((given & ~allowed) != 0) {
            throw new IllegalArgumentException(move + "does not take " + QpAttributes.names(given & ~allowed)
                + "; leave them unset (clear() the QpAttributes before reusing it). This move takes "
                + (allowed == 0 ? "only the state" : QpAttributes.names(allowed)));
        }
        if (attributes.has(CUR_STATE) && attributes.curState() != current) {
            throw new IllegalStateException(move + "curState says " + attributes.curState() + " but the QP is in " + current
                + "; query the QP, or leave curState unset");
        }
        return next;
    }

    private static List<QpState> legalTargets(QpState from) {
        List<QpState> out = new ArrayList<>();
        for (QpState to : QpState.values()) {
            if (isLegal(from, to)) {
                out.add(to);
            }
        }
        return out;
    }
}
