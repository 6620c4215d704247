package io.srdnic.srd.transport.device;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.QpTable;
import io.srdnic.srd.transport.qp.QpEvents;
import io.srdnic.srd.transport.qp.TransportQp;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.RcConnections;
import io.srdnic.srd.transport.srd.SendRequests;
import io.srdnic.srd.transport.srd.SrdRequester;
import java.util.function.LongSupplier;

/**
 * How a QP's trouble spreads, as in verbs: a completion that does not fit its CQ puts the CQ in
 * error and every QP reporting to it in ERROR; a QP in ERROR (or back to RESET, or destroyed)
 * gives up its work, with WR_FLUSH_ERROR completions (or silently); the events the application
 * hears of it. Stamped with the duty cycle's time.
 */
final class QpErrors implements QpEvents {
    private final QpTable<DeviceQp> qps;
    private final SendRequests requests;
    private final SrdRequester messages;
    private final RcConnections rc;
    private final AsyncEventQueue events;
    private final SrdCounters counters;
    /** The time of the current duty cycle. */
    private final LongSupplier clock;

    QpErrors(QpTable<DeviceQp> qps, SendRequests requests, SrdRequester messages, RcConnections rc, AsyncEventQueue events,
             SrdCounters counters, LongSupplier clock) {
        this.qps = qps;
        this.requests = requests;
        this.messages = messages;
        this.rc = rc;
        this.events = events;
        this.counters = counters;
        this.clock = clock;
    }

    /**
     * A completion did not fit {@code cq}: as in verbs, the CQ is in error (CQ_ERROR, once) and every
     * QP reporting to it goes to ERROR (QP_FATAL each), flushing its work: nothing more is accepted
     * for them that their application could not be told about.
     */
    @Override
    public void onCqOverrun(CompletionQueue cq) {
        counters.cqOverruns++;
        if (!cq.markError()) {
            return;
        }
        long now = clock.getAsLong();
        events.raise(AsyncEventQueue.CQ_ERROR, 0, 0, 0, now);
        for (int i = 0; i <= qps.indexMask(); i++) {
            DeviceQp qp = qps.at(i);
            if (qp != null && (qp.sendCq == cq || qp.recvCq == cq) && qp.state != QpState.ERROR) {
                events.raise(AsyncEventQueue.QP_FATAL, 0, 0, qp.qpn, now);
                qp.state = QpState.ERROR;
                flush(qp, true);
            }
        }
    }

    /** An event about one QP (SQ_DRAINED), stamped with this cycle's time. */
    @Override
    public void raise(int type, TransportQp qp) {
        events.raise(type, 0, 0, qp.qpn, clock.getAsLong());
    }

    /** A connected QP follows into RC: its connection starts, moves or stops with it. */
    @Override
    public void modified(TransportQp qp, QpState from) {
        if (qp.type.connected()) {
            rc.onModify(own(qp), from, clock.getAsLong());
        }
    }

    /** QP to ERROR: sends and receives complete with WR_FLUSH_ERROR; to RESET: dropped silently. */
    @Override
    public void flush(TransportQp qp, boolean withCompletions) {
        if (qp.type.connected()) {
            rc.flush(own(qp), withCompletions, clock.getAsLong());
        }
        finishRequests(qp, withCompletions ? WcStatus.WR_FLUSH_ERROR : -1);
        while (qp.ownsReceives() && !qp.receives.isEmpty()) { // an SRQ's receives stay for its other QPs
            if (withCompletions && !qp.recvCq.push(qp.receives.headWrId(), WcStatus.WR_FLUSH_ERROR, WcOpcode.RECV, 0, false, 0,
                    qp.qpn, 0, 0)) {
                onCqOverrun(qp.recvCq);
            }
            qp.receives.removeHead();
        }
    }

    /** The QP is destroyed: its work is dropped silently and its number names nothing any more. */
    @Override
    public void destroy(TransportQp qp) {
        if (qp.type.connected()) {
            rc.flush(own(qp), false, clock.getAsLong());
        }
        finishRequests(qp, -1);
        qp.destroyed = true;
        qps.remove(own(qp));
    }

    /** Ends every SRD/UD request of {@code qp} still in the transport's table with {@code status} (-1: no completion). */
    private void finishRequests(TransportQp qp, int status) {
        for (int r = 0; r < requests.capacity; r++) {
            if (requests.qp[r] == qp && requests.state[r] != SendRequests.FREE && requests.state[r] != SendRequests.CANCELLED) {
                messages.finish(r, status);
            }
        }
    }

    /** Every QP of this device is an {@link DeviceQp}: only {@link TransportDevice} creates them, and hands them this object. */
    private static DeviceQp own(TransportQp qp) {
        return (DeviceQp) qp;
    }
}
