package io.srdnic.srd.transport.rc;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.PathSet;
import io.srdnic.srd.transport.port.AddressHandles;
import io.srdnic.srd.transport.port.QpTable;
import io.srdnic.srd.transport.port.TransportPort;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;

/**
 * The transport's RC queue pairs as its duty cycle sees them: which have packets to send or timers
 * running (visited each cycle, dropped from the list once idle), which owe an ACK this cycle (one
 * per QP, however many packets it took), and where an RC packet or ACK goes (the QP its
 * destination QPN names; RC has no SRD context). Owned by the transport's thread.
 */
public final class RcConnections {
    /** What a failed connection asks of the device: flush the QP that went to ERROR (the device's QpErrors does it). */
    @FunctionalInterface
    public interface ErrorFlush {
        void flushQp(DeviceQp qp, boolean withCompletions);
    }

    private final ErrorFlush errorFlush;
    private final QpTable<DeviceQp> qps;
    private final AddressHandles addressHandles;
    private final SrdCounters counters;
    private final RcRequester[] active;
    private int activeCount;
    private final RcResponder[] owing;
    private int owingCount;
    /** The SACK words of the ACK being handled (read once from the frame). */
    private final long[] sack = new long[SrdAck.SACK_WORDS];

    public RcConnections(TransportPort port, QpTable<DeviceQp> qps, int maxQps, ErrorFlush errorFlush) {
        this.errorFlush = errorFlush;
        this.qps = qps;
        this.addressHandles = port.addressHandles;
        this.counters = port.counters;
        this.active = new RcRequester[maxQps + 1];
        this.owing = new RcResponder[maxQps + 1];
    }

    // ---------------------------------------------------------------- QP life

    /** A modify moved RC QP {@code qp} from {@code from}: RTR connects it (the peer's address, the RQ PSN), RTS starts its PSNs. */
    public void onModify(DeviceQp qp, QpState from, long now) {
        if (qp.state == QpState.RTR && from == QpState.INIT) {
            qp.rcRequester.addressHandle = qp.addressHandle;
            qp.rcRequester.connect(addressHandles.mac(qp.addressHandle), addressHandles.ip(qp.addressHandle),
                addressHandles.port(qp.addressHandle), qp.pathMtu);
            qp.rcResponder.start();
        } else if (qp.state == QpState.RTS && from == QpState.RTR) {
            qp.rcRequester.start(now);
            activate(qp.rcRequester); // answers to READs executed while in RTR wait to be sent
        } else if (qp.state == QpState.RTS || qp.state == QpState.SQD) {
            if (from == QpState.SQD && qp.state == QpState.SQD && qp.addressHandle != qp.rcRequester.addressHandle) {
                // SQD -> SQD with a new address vector (IB_QP_AV): the drained QP sends there, and admits only that
                // peer's packets, from the next SQD -> RTS on (issue 25, rule 8).
                qp.rcRequester.addressHandle = qp.addressHandle;
                qp.rcRequester.connect(addressHandles.mac(qp.addressHandle), addressHandles.ip(qp.addressHandle),
                    addressHandles.port(qp.addressHandle), qp.pathMtu);
            }
            qp.rcRequester.completer.takeRetryLimits(); // RTS -> RTS and SQD -> RTS may change timeout and retry_cnt
        }
    }

    /** The QP went to ERROR (completions flushed) or RESET / destroy (silently). */
    public void flush(DeviceQp qp, boolean withCompletions, long now) {
        qp.rcRequester.flush(withCompletions ? WcStatus.WR_FLUSH_ERROR : -1, now);
        qp.rcResponder.flush(withCompletions ? WcStatus.WR_FLUSH_ERROR : -1);
    }

    /** The connection failed (a fatal NAK sent or received, retries exhausted): the QP is in ERROR, everything flushed. */
    void enterError(DeviceQp qp, long now) {
        if (qp.state != QpState.ERROR) {
            qp.state = QpState.ERROR;
            errorFlush.flushQp(qp, true);
        }
    }

    // ---------------------------------------------------------------- duty cycle

    public void activate(RcRequester r) {
        if (!r.active) {
            r.active = true;
            active[activeCount++] = r;
        }
    }

    void oweAck(RcResponder r) {
        owing[owingCount++] = r;
    }

    public boolean owesAcks() {
        return owingCount > 0;
    }

    /** No RC QP to visit: the duty cycle skips RC altogether (SRD's hot path pays one test). */
    public boolean idle() {
        return activeCount == 0;
    }

    public int sendOwedAcks() {
        int n = owingCount;
        for (int i = 0; i < n; i++) {
            owing[i].sendAck();
            owing[i] = null;
        }
        owingCount = 0;
        return n;
    }

    private static boolean sends(DeviceQp qp) {
        return qp.state == QpState.RTS || qp.state == QpState.SQD;
    }

    public int schedule(long now) {
        int work = 0;
        for (int i = 0; i < activeCount; i++) {
            RcRequester r = active[i];
            if (sends(r.qp) && r.hasWork()) {
                int allowance = r.sender.sendAllowance();
                if (allowance > 0) {
                    work += r.schedule(allowance, now);
                }
            }
        }
        return work;
    }

    public int timers(long now) {
        int work = 0;
        for (int i = 0; i < activeCount; ) {
            RcRequester r = active[i];
            DeviceQp qp = r.qp;
            if (sends(qp)) {
                work += r.sender.detectLosses(now, r);
                if (r.completer.rnrHolding && now - r.completer.rnrUntil >= 0) {
                    work += r.completer.resumeAfterRnr(now);
                }
                work += r.completer.expireSilentAnswers(now);
                if (sends(qp)) {
                    work += r.completer.probeIfDue(now);
                }
                int path = r.sender.paths.probeDue(now);
                if (path != PathSet.NONE) {
                    r.sender.paths.onProbeReply(path); // RC sends no probes: a path's avoidance simply ends, a loss there renews it
                }
            }
            if (qp.rcResponder.stalled()) {
                work += qp.rcResponder.executeHeld(now);
            }
            if (qp.destroyed || !sends(qp) || (r.idle() && !qp.rcResponder.stalled())) {
                r.active = false;
                active[i] = active[--activeCount];
                active[activeCount] = null;
            } else {
                i++;
            }
        }
        return work;
    }

    /** The earliest time an RC QP has something due (now, if it can send), or Long.MAX_VALUE. */
    public long nextDeadline(long now) {
        long next = Long.MAX_VALUE;
        for (int i = 0; i < activeCount; i++) {
            RcRequester r = active[i];
            if (!sends(r.qp)) {
                continue;
            }
            if (r.hasWork() && r.sender.sendAllowance() > 0 && r.sender.canSendNextPsn()) {
                return now;
            }
            next = Math.min(next, r.sender.nextTimeout());
            next = Math.min(next, r.sender.paths.nextDeadline());
            if (r.completer.rnrHolding) {
                next = Math.min(next, r.completer.rnrUntil);
            }
            next = Math.min(next, r.completer.answerDeadline());
            next = Math.min(next, r.completer.probeDeadline());
        }
        return next;
    }

    // ---------------------------------------------------------------- receive

    /** A packet with FLAG_RC: an ACK to the requester, data to the responder, of the QP it names. */
    public void onPacket(Mbuf m, int type, long now) {
        if (type == PacketType.ACK) {
            onAck(m, now);
        } else if (PacketType.isData(type)) {
            onData(m, type, now);
        } else {
            counters.rcRefused++;
        }
    }

    /** An RC data packet: to the responder of the QP it names, if that is an RC or SRC QP. */
    void onData(Mbuf m, int type, long now) {
        counters.rxData++;
        DeviceQp qp = qps.get(SrdHeader.destinationQpn(m));
        if (qp == null || !qp.type.connected()) {
            counters.rcRefused++; // no such RC QP: as verbs, silently dropped (the requester's retries run out)
            return;
        }
        qp.rcResponder.onData(m, type, now);
    }

    /** An RC ACK: to the requester of the QP it names, if it is from that QP's peer. */
    void onAck(Mbuf m, long now) {
        counters.rxAcks++;
        DeviceQp qp = qps.get(SrdAck.destinationContext(m));
        if (qp == null || !qp.type.connected() || !sends(qp) || Ipv4UdpFrame.sourceIp(m) != qp.rcRequester.remoteIp
            || SrdAck.sourceContext(m) != qp.destQpn) {
            counters.staleAcks++;
            return;
        }
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            sack[w] = SrdAck.sackWord(m, w);
        }
        qp.rcRequester.completer.onAck(m, sack, now);
    }
}
