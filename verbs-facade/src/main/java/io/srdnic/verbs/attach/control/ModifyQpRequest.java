package io.srdnic.verbs.attach.control;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * MODIFY_QP of the client's QP {@code qpn}: either the short form ({@code simple}: move to
 * {@code values[0]}, QpState's ordinal, taking Q_Key {@code values[1]}, as QueuePair.modify(state, qkey)),
 * or QpAttributes whole: {@code mask} and every value in {@link #toAttributes}'s order. The reply's
 * state is the QP's afterwards.
 */
public record ModifyQpRequest(int qpn, boolean simple, int mask, int[] values) implements ControlMessage {
    public static final int TYPE = 12;
    public static final int VALUES = 18;

    /** The short form: a move to {@code state} with {@code qkey}. */
    public static ModifyQpRequest simple(int qpn, QpState state, int qkey) {
        int[] v = new int[VALUES];
        v[0] = state.ordinal();
        v[1] = qkey;
        return new ModifyQpRequest(qpn, true, 0, v);
    }

    /** The whole attributes: the mask and every value, set or not (the mask says which count). */
    public static ModifyQpRequest of(int qpn, QpAttributes a) {
        int[] v = {a.state() == null ? 0 : a.state().ordinal(), a.curState() == null ? 0 : a.curState().ordinal(),
            a.sqDrainedNotify() ? 1 : 0, a.accessFlags(), a.pkeyIndex(), a.port(), a.qkey(), a.addressHandle(), a.pathMtu(),
            a.timeout(), a.retryCnt(), a.rnrRetry(), a.rqPsn(), a.maxRdAtomic(), a.minRnrTimer(), a.sqPsn(), a.maxDestRdAtomic(),
            a.destQpn()};
        return new ModifyQpRequest(qpn, false, a.mask(), v);
    }

    /** The attributes this request sets (only those its mask names); throws IllegalArgumentException on a bad state. */
    public QpAttributes toAttributes() {
        QpAttributes a = new QpAttributes();
        int m = mask;
        if ((m & QpAttributes.STATE) != 0) a.state(state(values[0]));
        if ((m & QpAttributes.CUR_STATE) != 0) a.curState(state(values[1]));
        if ((m & QpAttributes.SQ_DRAINED_NOTIFY) != 0) a.sqDrainedNotify(values[2] != 0);
        if ((m & QpAttributes.ACCESS_FLAGS) != 0) a.accessFlags(values[3]);
        if ((m & QpAttributes.PKEY_INDEX) != 0) a.pkeyIndex(values[4]);
        if ((m & QpAttributes.PORT) != 0) a.port(values[5]);
        if ((m & QpAttributes.QKEY) != 0) a.qkey(values[6]);
        if ((m & QpAttributes.ADDRESS_HANDLE) != 0) a.addressHandle(values[7]);
        if ((m & QpAttributes.PATH_MTU) != 0) a.pathMtu(values[8]);
        if ((m & QpAttributes.TIMEOUT) != 0) a.timeout(values[9]);
        if ((m & QpAttributes.RETRY_CNT) != 0) a.retryCnt(values[10]);
        if ((m & QpAttributes.RNR_RETRY) != 0) a.rnrRetry(values[11]);
        if ((m & QpAttributes.RQ_PSN) != 0) a.rqPsn(values[12]);
        if ((m & QpAttributes.MAX_RD_ATOMIC) != 0) a.maxRdAtomic(values[13]);
        if ((m & QpAttributes.MIN_RNR_TIMER) != 0) a.minRnrTimer(values[14]);
        if ((m & QpAttributes.SQ_PSN) != 0) a.sqPsn(values[15]);
        if ((m & QpAttributes.MAX_DEST_RD_ATOMIC) != 0) a.maxDestRdAtomic(values[16]);
        if ((m & QpAttributes.DEST_QPN) != 0) a.destQpn(values[17]);
        return a;
    }

    /** QpState by ordinal; IllegalArgumentException for anything else. */
    public static QpState state(int ordinal) {
        QpState[] all = QpState.values();
        if (ordinal < 0 || ordinal >= all.length) {
            throw new IllegalArgumentException("no QP state " + ordinal);
        }
        return all[ordinal];
    }

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(qpn).putInt(simple ? 1 : 0).putInt(mask);
        for (int v : values) {
            out.putInt(v);
        }
    }

    static ModifyQpRequest decode(ByteBuffer in) throws ProtocolException {
        int qpn = Fields.int32(in);
        int simple = Fields.int32(in);
        if (simple != 0 && simple != 1) {
            throw new ProtocolException("MODIFY_QP form " + simple + " is neither 0 nor 1");
        }
        int mask = Fields.int32(in);
        int[] v = new int[VALUES];
        for (int i = 0; i < VALUES; i++) {
            v[i] = Fields.int32(in);
        }
        return new ModifyQpRequest(qpn, simple == 1, mask, v);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ModifyQpRequest r && r.qpn == qpn && r.simple == simple && r.mask == mask
            && Arrays.equals(r.values, values);
    }

    @Override
    public int hashCode() {
        return qpn * 31 + Arrays.hashCode(values);
    }
}
