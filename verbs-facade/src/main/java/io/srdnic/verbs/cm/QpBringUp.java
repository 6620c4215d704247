package io.srdnic.verbs.cm;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.VerbsException;

/**
 * The QP moves the CM makes for its id, as rdma_cm does for an attached QP: INIT when the QP is
 * attached (so receives can be posted before the connection is up), RTR and RTS with what the two
 * sides agreed, ERROR when the connection ends.
 */
final class QpBringUp {
    /** perftest's local ACK timeout (4.096 µs × 2^14, about 67 ms). */
    static final int LOCAL_ACK_TIMEOUT = 14;
    /** The default: IBTA code 12, 0.64 ms. InfiniBand's CM leaves 0, which means 655 ms — a classic stall. */
    static final int MIN_RNR_TIMER = 12;

    private QpBringUp() {
    }

    /** RESET → INIT with remote write, read and atomics allowed (the regions' own access flags still decide). */
    static void init(QueuePair qp) {
        if (qp.state() == QpState.RESET) {
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                .accessFlags(QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ | QpAttributes.ACCESS_REMOTE_ATOMIC));
        }
    }

    /** INIT → RTR → RTS towards the peer's QP on the path {@code addressHandle}. */
    static void connect(QueuePair qp, int addressHandle, int pathMtu, int destQpn, int rqPsn, int maxDestRdAtomic, int minRnrTimer,
                        int sqPsn, int ackTimeout, int retryCnt, int rnrRetry, int maxRdAtomic) {
        qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(addressHandle).pathMtu(pathMtu).destQpn(destQpn).rqPsn(rqPsn)
            .maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(sqPsn).timeout(ackTimeout).retryCnt(retryCnt).rnrRetry(rnrRetry)
            .maxRdAtomic(maxRdAtomic));
    }

    /** The connection is over: outstanding work completes flushed (rdma_disconnect moves the QP to ERROR). */
    static void error(QueuePair qp) {
        if (qp != null && qp.state() != QpState.ERROR && qp.state() != QpState.RESET) {
            try {
                qp.modify(new QpAttributes().state(QpState.ERROR));
            } catch (VerbsException destroyed) {
                // the application destroyed it first: nothing left to stop
            }
        }
    }
}
