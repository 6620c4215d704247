package io.srdnic.verbs;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;

/**
 * The XRC QP types' moves on the transport's SRC QPs, whose state machine is RC's: the kernel's
 * qp_state_table asks XRC INI (XRC_SEND) for no receive-side attributes at INIT → RTR and XRC TGT
 * (XRC_RECV) for no send-side attributes at RTR → RTS beyond timeout and sqPsn. Each half never
 * uses the attributes of the other, so the facade gives the SRC QP harmless values for those not
 * given, in a copy: the caller's attributes stay as they were.
 */
final class XrcTransitions {
    private XrcTransitions() {
    }

    static QpAttributes complete(XrcQpType type, QpState current, QpAttributes given) {
        QpState next = given.has(QpAttributes.STATE) ? given.state() : current;
        QpAttributes a = given.copy();
        if (type == XrcQpType.XRC_SEND && current == QpState.INIT && next == QpState.RTR) {
            // It answers nothing: no READ or atomic arrives for it, no receive is ever missing.
            fill(a, QpAttributes.MAX_DEST_RD_ATOMIC, () -> a.maxDestRdAtomic(0));
            fill(a, QpAttributes.MIN_RNR_TIMER, () -> a.minRnrTimer(0));
        } else if (type == XrcQpType.XRC_RECV && current == QpState.RTR && next == QpState.RTS) {
            // It posts nothing: its PSN space carries only READ answers, which its engine retries.
            fill(a, QpAttributes.RETRY_CNT, () -> a.retryCnt(7));
            fill(a, QpAttributes.RNR_RETRY, () -> a.rnrRetry(7));
            fill(a, QpAttributes.MAX_RD_ATOMIC, () -> a.maxRdAtomic(0));
        }
        return a;
    }

    private static void fill(QpAttributes a, int bit, Runnable set) {
        if (!a.has(bit)) {
            set.run();
        }
    }
}
