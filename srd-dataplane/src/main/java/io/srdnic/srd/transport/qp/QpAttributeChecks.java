package io.srdnic.srd.transport.qp;

import io.srdnic.srd.api.QpAttributes;
import java.util.function.IntPredicate;

/**
 * The value checks of a modify, for the attributes it sets (which ones it may set is
 * {@link QpTransitions}' business): each failure names the attribute, its range and the value given.
 */
public final class QpAttributeChecks {
    /** IBTA's packet sizes: RC segments by one of these. */
    private static final int[] PATH_MTUS = {256, 512, 1024, 2048, 4096};
    private static final int PSN_MASK = 0xFF_FFFF;
    private static final int QPN_MASK = 0xFF_FFFF;
    private static final int ACCESS_REMOTE = QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ
        | QpAttributes.ACCESS_REMOTE_ATOMIC;

    private QpAttributeChecks() {
    }

    /**
     * @param deviceMtu        the largest payload one packet of this device carries: no path MTU above it
     * @param addressHandleLive whether an address handle exists on this transport
     * @throws IllegalArgumentException naming the first attribute whose value is out of range
     */
    public static void check(QpAttributes a, int deviceMtu, IntPredicate addressHandleLive) {
        if (a.has(QpAttributes.PORT) && a.port() != 1) {
            throw bad(QpAttributes.PORT, "must be 1: a device has one port", a.port());
        }
        if (a.has(QpAttributes.PKEY_INDEX) && a.pkeyIndex() != 0) {
            throw bad(QpAttributes.PKEY_INDEX, "must be 0: the P_Key table has one entry, the default P_Key", a.pkeyIndex());
        }
        if (a.has(QpAttributes.ACCESS_FLAGS) && (a.accessFlags() & ~ACCESS_REMOTE) != 0) {
            throw bad(QpAttributes.ACCESS_FLAGS, "takes only ACCESS_REMOTE_WRITE, ACCESS_REMOTE_READ and ACCESS_REMOTE_ATOMIC",
                    a.accessFlags());
        }
        if (a.has(QpAttributes.ADDRESS_HANDLE) && !addressHandleLive.test(a.addressHandle())) {
            throw bad(QpAttributes.ADDRESS_HANDLE, "names no address handle of this device: create one for the remote first",
                a.addressHandle());
        }
        if (a.has(QpAttributes.PATH_MTU)) {
            checkPathMtu(a.pathMtu(), deviceMtu);
        }
        range(a, QpAttributes.TIMEOUT, a.timeout(), LocalAckTimeout.MAX_CODE, "4.096 us x 2^timeout, 0 = infinite");
        range(a, QpAttributes.RETRY_CNT, a.retryCnt(), 7, "three bits");
        range(a, QpAttributes.RNR_RETRY, a.rnrRetry(), 7, "three bits; on RC 7 = infinite");
        range(a, QpAttributes.MIN_RNR_TIMER, a.minRnrTimer(), RnrTimer.MAX_CODE, "IBTA's five-bit RNR timer code, see RnrTimer");
        range(a, QpAttributes.MAX_RD_ATOMIC, a.maxRdAtomic(), QpAttributes.RD_ATOMIC_LIMIT, "this device's limit");
        range(a, QpAttributes.MAX_DEST_RD_ATOMIC, a.maxDestRdAtomic(), QpAttributes.RD_ATOMIC_LIMIT, "this device's limit");
        range(a, QpAttributes.RQ_PSN, a.rqPsn(), PSN_MASK, "a PSN has 24 bits");
        range(a, QpAttributes.SQ_PSN, a.sqPsn(), PSN_MASK, "a PSN has 24 bits");
        range(a, QpAttributes.DEST_QPN, a.destQpn(), QPN_MASK, "a QPN has 24 bits");
    }

    private static void checkPathMtu(int pathMtu, int deviceMtu) {
        boolean ibtaSize = false;
        for (int size : PATH_MTUS) {
            ibtaSize |= pathMtu == size;
        }
        if (!ibtaSize) {
            throw bad(QpAttributes.PATH_MTU, "is in bytes, one of 256, 512, 1024, 2048, 4096", pathMtu);
        }
        if (pathMtu > deviceMtu) {
            throw bad(QpAttributes.PATH_MTU, "cannot exceed the device MTU " + deviceMtu + " (queryDevice reports it)", pathMtu);
        }
    }

    private static void range(QpAttributes a, int bit, int value, int max, String why) {
        if (a.has(bit) && (value < 0 || value > max)) {
            throw bad(bit, "is 0.." + max + " (" + why + ")", value);
        }
    }

    private static IllegalArgumentException bad(int bit, String rule, int value) {
        return new IllegalArgumentException(QpAttributes.name(bit) + " " + rule + ", was " + value);
    }
}
