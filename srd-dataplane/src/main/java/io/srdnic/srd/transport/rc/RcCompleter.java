package io.srdnic.srd.transport.rc;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.AckChecks;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.port.CycleClock;
import io.srdnic.srd.transport.qp.LocalAckTimeout;
import io.srdnic.srd.transport.qp.RnrTimer;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * RC's completer for one QP, in the shape of rxe_comp.c: ACK/NAK intake, in-order completion of
 * the send queue, READ and atomic response placement, the retry and RNR policy and fatal-NAK
 * handling, as a small state machine ({@link State}) run by {@link #run}, each state a short
 * method returning the next.
 * <p>
 * Work requests complete strictly in post order: one whose packets are all acknowledged (a READ
 * or an atomic: and all its response placed) waits for those before it. Failure is the QP's, as in
 * verbs: a fatal NAK (REMOTE_ACCESS, INVALID_REQUEST or REMOTE_OPERATION), retry_cnt
 * retransmissions of a packet past the local ACK timeout (RETRY_EXCEEDED), or RNR NAKs past
 * rnr_retry (RNR_RETRY_EXCEEDED, never with 7 = infinite) complete the request that met it with
 * that status, those before it that had succeeded with SUCCESS, every later one with
 * WR_FLUSH_ERROR, and put the QP in ERROR.
 */
final class RcCompleter {
    /** rnr_retry 7: retry for ever. */
    private static final int RNR_RETRY_INFINITE = 7;

    /** The completer's states, named as rxe_comp.c's {@code enum comp_state} where they do the same job. */
    enum State {
        /** An ACK: does it name only PSNs we sent? */
        CHECK_PSN,
        /** An ACK: its cumulative and selective PSNs to the reliability engine. */
        CHECK_ACK,
        /** The send queue's head: done, refused, or still waiting? */
        GET_WQE,
        /** The head is done: complete it. */
        COMP_WQE,
        /** An ACK's next NAK, if any. */
        COMP_ACK,
        /** An RNR NAK: wait for the timer, or fail once rnr_retry is spent. */
        RNR_RETRY,
        /** A READ_RESPONSE: does it name a READ or atomic of ours that waits for it? */
        CHECK_RESPONSE,
        /** A READ's data placed. */
        READ,
        /** An atomic's original value placed. */
        ATOMIC,
        /** An ACK fully taken: progress, and what the responder waited on. */
        UPDATE_COMP,
        /** The peer is given up on (retries spent, answers silent): the oldest request not done fails. */
        ERROR_RETRY,
        /** The QP fails at a request: before it SUCCESS, it its status, after it flushed. */
        ERROR,
        DONE
    }

    private final SrdCounters counters;
    private final CycleClock clock;
    private final RcConnections rc;
    private final DeviceQp qp;
    private final ReliableSender sender;
    private final RcSendQueue sq;
    private final ReliableSender.Listener listener;
    private final long rtoMaxNanos;

    private int rnrLeft;
    boolean rnrHolding;
    long rnrUntil;
    /** When the last RNR wait ended: an RNR NAK answering a transmission sent before it is a late copy, already obeyed. */
    private long rnrResumedAt;
    /** How long READs and atomics may wait on answers with none arriving: twice the retry budget (Long.MAX_VALUE: for ever). */
    private long answerSilenceLimit = Long.MAX_VALUE;
    /** When an answer last arrived (or the QP started): silence is measured from it or from the sender's last progress. */
    private long lastAnswerAt;
    /** The local ACK timeout (Long.MAX_VALUE: infinite), the period of {@link #probeIfDue}. */
    private long probeInterval = Long.MAX_VALUE;
    /** When the last probe went (or the QP started), and how many went since the last progress. */
    private long lastProbeAt;
    private int probes;

    // The packet being completed (an ACK or a READ_RESPONSE) and what its states found.
    private Mbuf packet;
    private long[] sack;
    private int cumulative;
    private int naks;
    private int nakIndex;
    private int nakPsn;
    private int nakOwner;
    private int nakDetail;
    private boolean progress;
    private boolean rnr;
    private int responseSlot;
    private int responseData;
    private int responseAt;
    /** Where GET_WQE goes once the head is not done: COMP_ACK while an ACK's NAKs are still to read, else DONE. */
    private State afterWqe = State.DONE;
    private int errorSlot;
    private int errorStatus;
    /** Inside a flush's request that the driver free: what it frees is completed by the flush itself, not by {@link #letGo}. */
    private boolean reclaiming;

    RcCompleter(DeviceQp qp, ReliableSender sender, RcSendQueue sq, ReliableSender.Listener listener, SrdCounters counters,
            CycleClock clock,
                RcConnections rc, long rtoMaxNanos) {
        this.qp = qp;
        this.sender = sender;
        this.sq = sq;
        this.listener = listener;
        this.counters = counters;
        this.clock = clock;
        this.rc = rc;
        this.rtoMaxNanos = rtoMaxNanos;
    }

    /** RTS: the retry budgets start full. */
    void start(long now) {
        takeRetryLimits();
        rnrLeft = qp.rnrRetry;
        rnrHolding = false;
        rnrResumedAt = now; // nothing of this connection was sent before
        lastAnswerAt = now;
        lastProbeAt = now;
        probes = 0;
    }

    /**
     * The QP's retry_cnt and local ACK timeout, at RTS and whenever a modify changes them: a packet
     * is given up after retry_cnt retransmissions, and not before (retry_cnt + 1) timeouts have passed.
     */
    void takeRetryLimits() {
        long ackTimeout = LocalAckTimeout.nanos(qp.timeout);
        long minAge = ackTimeout == LocalAckTimeout.INFINITE ? Long.MAX_VALUE : ackTimeout * (qp.retryCnt + 1);
        sender.giveUpAfter(qp.retryCnt, Long.MAX_VALUE, minAge);
        answerSilenceLimit = minAge == Long.MAX_VALUE ? Long.MAX_VALUE : 2 * minAge;
        probeInterval = ackTimeout == LocalAckTimeout.INFINITE ? Long.MAX_VALUE : ackTimeout;
    }

    // ---------------------------------------------------------------- entry points

    /** An RC ACK from the peer, checked to be from it and for this QP; {@code sackWords} holds its selective bits. */
    void onAck(Mbuf m, long[] sackWords, long now) {
        packet = m;
        sack = sackWords;
        run(State.CHECK_PSN, now);
    }

    /**
     * A READ_RESPONSE (executed in PSN order) for the READ or atomic it names, which must be one of
     * this QP's, waiting, and hold it (an atomic's: all of its 8 bytes at once). A response naming
     * none is a ghost and is ignored, as verbs ignores one; a response that says the request was
     * refused fails the QP.
     */
    void onReadResponse(Mbuf m, long now) {
        packet = m;
        run(State.CHECK_RESPONSE, now);
    }

    /** The engine: packet {@code owner} of the send queue was acknowledged. */
    void acked(int owner) {
        sq.get(owner).inFlight--;
        completeReady();
    }

    /** Completes, in post order, every request at the head that is done (see {@link #getWqe}). */
    void completeReady() {
        run(State.GET_WQE, clock.now());
    }

    /** The engine gave a packet up, or answers fell silent: RETRY_EXCEEDED_ERROR on the oldest request not done. */
    void retryExceeded(long now) {
        run(State.ERROR_RETRY, now);
    }

    /** The QP fails at request slot {@code owner} ({@code sq.depth} or more: an answer of ours, at none of the application's). */
    void failOwner(int owner, int status, long now) {
        fail(owner >= sq.depth ? -1 : owner, status);
        run(State.ERROR, now);
    }

    /**
     * Ends the send queue: every request completes with {@code status} in order (silently when -1:
     * reset or destroy). The driver is first asked to free what it still reads of their memory; a
     * request it still reads completes, with those after it, once it is freed ({@link #letGo}) —
     * but a reset or destroy takes them all now (a region's memory is kept by its deregistration).
     */
    void flush(int status) {
        reclaimHeld();
        for (long q = sq.head; q != sq.tail; q++) {
            RcSendSlot w = sq.get(sq.slot(q));
            if (status < 0 || !w.ending) {
                w.ending = true;
                w.endStatus = status;
            }
        }
        drain(status < 0);
        rnrHolding = false;
    }

    private void reclaimHeld() {
        reclaiming = true;
        qp.rcRequester.reclaimHeld();
        reclaiming = false;
    }

    /** Completes the ended requests at the head with their status, up to one the driver still reads (unless {@code regardless}). */
    private void drain(boolean regardless) {
        while (sq.head != sq.tail) {
            int h = sq.slot(sq.head);
            RcSendSlot w = sq.get(h);
            if (!regardless && w.nicHolds > 0) {
                return;
            }
            sq.head++;
            w.ending = false;
            complete(h, w.endStatus);
        }
    }

    /** The driver freed the last packet it read of request slot {@code s}: if it was what the head waited for, it completes. */
    void letGo(int s) {
        if (!reclaiming && sq.head != sq.tail && sq.slot(sq.head) == s) {
            if (sq.get(s).ending) {
                drain(false);
            } else {
                completeReady();
            }
        }
    }

    private void run(State start, long now) {
        State s = start;
        while (s != State.DONE) {
            s = switch (s) {
                case CHECK_PSN -> checkPsn(now);
                case CHECK_ACK -> checkAck(now);
                case GET_WQE -> getWqe();
                case COMP_WQE -> compWqe();
                case COMP_ACK -> compAck();
                case RNR_RETRY -> rnrRetry(now);
                case CHECK_RESPONSE -> checkResponse();
                case READ -> read(now);
                case ATOMIC -> atomic(now);
                case UPDATE_COMP -> updateComp(now);
                case ERROR_RETRY -> errorRetry();
                case ERROR -> error(now);
                case DONE -> State.DONE;
            };
        }
    }

    // ---------------------------------------------------------------- an ACK

    private State checkPsn(long now) {
        cumulative = SrdAck.cumulativePsn(packet);
        naks = SrdAck.dropCount(packet);
        if (!sender.hasWindow() || !AckChecks.namesOnlySentPsns(sender, packet, cumulative, sack, naks)) {
            counters.acksRefused++;
            return State.DONE;
        }
        sender.onAckTiming(SrdAck.triggerPsn(packet), SrdAck.echoedTimestamp(packet), now, rtoMaxNanos * 4);
        return State.CHECK_ACK;
    }

    /** What the responder executed first: a NAK names a packet every one before which was executed (it runs them in order). */
    private State checkAck(long now) {
        progress = sender.onAcknowledged(cumulative, sack, listener);
        if ((SrdHeader.flags(packet) & SrdHeader.FLAG_HELD) != 0) {
            progress |= sender.acknowledgeOne(cumulative, listener); // waits at the responder for it to run: not to be sent again
        }
        if (SrdAck.hasDuplicate(packet)) {
            sender.onDuplicateReport(SrdAck.duplicatePsn(packet)); // a DSACK: the copy it names was one too many
        }
        sender.advanceSendBase();
        rnr = false;
        nakIndex = 0;
        afterWqe = State.COMP_ACK; // requests acknowledged selectively complete once the cumulative ACK passes them; then the NAKs
        return State.GET_WQE;
    }

    /** The ACK's next NAK: RNR to its policy, a fatal one fails its request; none left: UPDATE_COMP. */
    private State compAck() {
        while (nakIndex < naks) {
            int i = nakIndex++;
            int psn = SrdAck.dropPsn(packet, i);
            int owner = sender.owner(psn);
            int reason = SrdAck.dropReason(packet, i);
            if (reason == DropReason.PSN_SEQUENCE) {
                // Not an error (rxe_comp.c's NAK_PSN_SEQ_ERROR): the responder expects psn and got a later packet,
                // the one this ACK answers; what was sent from psn before it goes again after a reorder window
                // (detectLosses, at UPDATE_COMP or the timers), not at a retransmission timeout.
                counters.dropsReceived[reason]++;
                sender.noteGap(psn, SrdAck.triggerPsn(packet), SrdAck.echoedTimestamp(packet), clock.now());
                continue;
            }
            if (owner == ReliableSender.EMPTY) {
                if (reason == DropReason.RNR || psn - sender.peerCumulative < 0) {
                    continue; // a NAK repeated, for a packet already settled
                }
                // Acknowledged selectively while held, then refused when its turn came: its request fails all the same.
                owner = sq.ownerOfAcknowledged(psn);
            }
            counters.dropsReceived[reason]++;
            if (reason == DropReason.RNR) {
                if (!rnrHolding && SrdAck.echoedTimestamp(packet) - rnrResumedAt < 0) {
                    continue; // a late copy of a NAK whose wait is over: what it answered went again since
                }
                nakPsn = psn;
                nakOwner = owner;
                nakDetail = SrdAck.dropDetail(packet, i);
                return State.RNR_RETRY;
            }
            fail(owner >= sq.depth ? -1 : owner, switch (reason) {
                case DropReason.REMOTE_ACCESS -> WcStatus.REMOTE_ACCESS_ERROR;
                case DropReason.REMOTE_OPERATION -> WcStatus.REMOTE_OPERATION_ERROR;
                default -> WcStatus.REMOTE_INVALID_REQUEST_ERROR;
            });
            return State.ERROR;
        }
        return State.UPDATE_COMP;
    }

    /** An RNR NAK: hold from its PSN until the responder's timer runs out, or fail once rnr_retry is spent. */
    private State rnrRetry(long now) {
        rnr = true;
        if (!rnrHolding) {
            if (qp.rnrRetry != RNR_RETRY_INFINITE) {
                if (rnrLeft == 0) {
                    fail(nakOwner >= sq.depth ? -1 : nakOwner, WcStatus.RNR_RETRY_EXCEEDED_ERROR);
                    return State.ERROR;
                }
                rnrLeft--;
            }
            rnrHolding = true;
            rnrUntil = now + RnrTimer.nanos(nakDetail & RnrTimer.MAX_CODE);
            rc.activate(qp.rcRequester);
        }
        // As verbs goes back to the NAKed PSN: everything from it on not yet acknowledged waits out the timer too
        // (later segments of the message met no receive either; those the responder holds are acknowledged already).
        sender.holdFrom(nakPsn);
        return State.COMP_ACK;
    }

    private State updateComp(long now) {
        if (progress) {
            sender.lastProgress = now;
            probes = 0;
            if (!rnr) {
                rnrLeft = qp.rnrRetry; // as verbs counts it: RNR retries in a row, without progress between
            }
        }
        qp.rcResponder.refuseIfAnswered(now); // a fatal NAK of the responder's waited for the answers just acknowledged
        if (qp.state != QpState.ERROR) {
            if (qp.rcResponder.stalled() && qp.rcRequester.canAnswer()) {
                qp.rcResponder.executeHeld(now); // an answer slot freed: the READ or atomic waiting for one runs now
            }
            sender.detectLosses(now, listener);
        }
        return State.DONE;
    }

    // ---------------------------------------------------------------- the send queue's head

    /**
     * The head is done once all its packets are sent and executed — the cumulative ACK past its
     * last PSN; a selective ACK only says a packet is held, and a held packet can still be refused
     * when its turn comes — and a READ's data (an atomic's answer) all placed. A refused request
     * at the head fails the QP now that everything before it has completed.
     */
    private State getWqe() {
        if (sq.head == sq.tail) {
            return nextAfterWqe();
        }
        int h = sq.slot(sq.head);
        RcSendSlot w = sq.get(h);
        if (w.ending) {
            return nextAfterWqe(); // flushed, waiting for the driver: letGo completes it
        }
        if (w.done) {
            return w.nicHolds != 0 ? nextAfterWqe() : State.COMP_WQE;
        }
        if (w.refused >= 0) {
            fail(h, w.refused); // everything before it completed: now its error, ERROR, the rest flushed
            afterWqe = State.DONE;
            return State.ERROR;
        }
        if (w.nextSegment != w.segments || w.inFlight != 0 || w.readLeft != 0 || sender.peerCumulative - w.lastPsn <= 0) {
            return nextAfterWqe();
        }
        w.done = true;
        if (SendOpcode.awaitsResponse(w.opcode)) {
            sq.readsInFlight--;
            rc.activate(qp.rcRequester); // a READ or atomic waiting for max_rd_atomic may go now
        }
        // Done, but completed (its memory handed back) only once the driver no longer reads it: letGo completes it then.
        return w.nicHolds != 0 ? nextAfterWqe() : State.COMP_WQE;
    }

    private State nextAfterWqe() {
        State next = afterWqe;
        afterWqe = State.DONE;
        return next;
    }

    private State compWqe() {
        complete(sq.slot(sq.head++), WcStatus.SUCCESS);
        return State.GET_WQE;
    }

    private void complete(int s, int status) {
        RcSendSlot w = sq.get(s);
        MemorySegment buf = w.buffer;
        w.buffer = null;
        if (w.sges.count() > 0) {
            w.sges.clear(); // the slot keeps no application memory alive
        }
        if (status < 0) {
            qp.sqOutstanding--;
        } else {
            counters.sendCompletions[status]++;
            qp.completeSend(w.wrId, SendOpcode.completionOpcode(w.opcode), status, w.length, w.signaled);
        }
        if (w.releases) {
            qp.released(buf, w.offset);
        }
    }

    // ---------------------------------------------------------------- READ and atomic responses

    private State checkResponse() {
        Mbuf m = packet;
        int token = ReadResponseHeader.token(m);
        int s = RcSendQueue.slotOfToken(token);
        int data = SrdHeader.payloadLength(m) - ReadResponseHeader.LENGTH;
        int at = ReadResponseHeader.readOffset(m);
        RcSendSlot w = s < sq.depth ? sq.get(s) : null;
        boolean atomic = w != null && SendOpcode.isAtomic(w.opcode);
        if (w == null || !sq.isWaiting(s) || !SendOpcode.awaitsResponse(w.opcode) || sq.token(s) != token
            || ReadResponseHeader.readLength(m) != w.length || at < 0 || data > w.readLeft || (long) at + data > w.length
            || (atomic && ReadResponseHeader.status(m) == 0 && data != SendOpcode.ATOMIC_SIZE)) {
            counters.readResponsesRefused++;
            return State.DONE;
        }
        if (ReadResponseHeader.status(m) != 0) {
            boolean access = ReadResponseHeader.status(m) == DropReason.REMOTE_ACCESS;
            fail(s, access ? WcStatus.REMOTE_ACCESS_ERROR : WcStatus.REMOTE_OPERATION_ERROR);
            return State.ERROR;
        }
        responseSlot = s;
        responseData = data;
        responseAt = at;
        return atomic ? State.ATOMIC : State.READ;
    }

    private State read(long now) {
        RcSendSlot w = sq.get(responseSlot);
        try {
            packet.copyTo(ReadResponseHeader.DATA_OFFSET, w.buffer, w.offset + responseAt, responseData);
        } catch (IllegalStateException closedBuffer) {
            fail(responseSlot, WcStatus.LOCAL_PROTECTION_ERROR);
            return State.ERROR;
        }
        return placed(w, now);
    }

    private State atomic(long now) {
        RcSendSlot w = sq.get(responseSlot);
        try {
            // A number on the wire, a word in host byte order in the local buffer, as verbs returns it.
            w.buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, w.offset, packet.getLongBE(ReadResponseHeader.DATA_OFFSET));
        } catch (IllegalStateException closedBuffer) {
            fail(responseSlot, WcStatus.LOCAL_PROTECTION_ERROR);
            return State.ERROR;
        }
        return placed(w, now);
    }

    private State placed(RcSendSlot w, long now) {
        counters.readResponsesPlaced++;
        w.readLeft -= responseData;
        lastAnswerAt = now;
        return State.GET_WQE;
    }

    // ---------------------------------------------------------------- failure

    /**
     * A READ or atomic the peer executed waits on answers from the peer's own PSN space, and with
     * nothing of ours outstanding no retransmission timer watches it: a peer that died mid-answer
     * would leave it waiting for ever. Once no answer (nor ACK) has come for twice the retry budget
     * — twice, so that a live peer resending its answers within its own budget is not given up on
     * first — the oldest request not done fails RETRY_EXCEEDED_ERROR and the QP goes to ERROR.
     * Silence is measured up to the last time the RX ring was emptied: after a stall of this thread
     * the answers that kept coming are still in the ring. Returns 1 if it failed the QP.
     */
    int expireSilentAnswers(long now) {
        long deadline = answerDeadline();
        if (deadline == Long.MAX_VALUE || clock.lastDrained() - deadline < 0) {
            return 0;
        }
        retryExceeded(now);
        return 1;
    }

    /** When {@link #expireSilentAnswers} is next due, or Long.MAX_VALUE. */
    long answerDeadline() {
        if (sq.readsInFlight == 0 || sender.inflight > 0 || answerSilenceLimit == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return Math.max(lastAnswerAt, sender.lastProgress) + answerSilenceLimit;
    }

    /**
     * As rxe_comp.c keeps its retransmit timer running while the send queue has a request not
     * completed: a request sent in full whose packets the responder holds (acknowledged selectively,
     * so the engine keeps nothing of them in flight) completes only when the cumulative ACK passes it
     * or a NAK refuses it, and the ACK carrying either may be lost. With nothing in flight and no
     * progress for a local ACK timeout, the oldest such request's last packet goes again (a probe,
     * built from its slot as a retransmission): the responder acknowledges a duplicate again, and
     * answers one after a fatal NAK with that NAK. After retry_cnt probes without progress the
     * requester gives up, RETRY_EXCEEDED_ERROR, as for any retransmission. Returns 1 if it sent or failed.
     */
    int probeIfDue(long now) {
        long deadline = probeDeadline();
        if (deadline == Long.MAX_VALUE || now - deadline < 0) {
            return 0;
        }
        if (probes >= qp.retryCnt) {
            retryExceeded(now);
            return 1;
        }
        probes++;
        lastProbeAt = now;
        int h = sq.slot(sq.head);
        RcSendSlot w = sq.get(h);
        listener.emit(sender, w.lastPsn, h, w.segments - 1, probes % sender.paths.count(), 2, now);
        return 1;
    }

    /** When {@link #probeIfDue} is next due, or Long.MAX_VALUE: only a request sent in full and not completed, none in flight. */
    long probeDeadline() {
        if (sq.head == sq.nextToSend || sender.inflight > 0 || sq.readsInFlight > 0 || rnrHolding || probeInterval == Long.MAX_VALUE
            || qp.state == QpState.ERROR) {
            return Long.MAX_VALUE;
        }
        RcSendSlot w = sq.get(sq.slot(sq.head));
        if (w.done || w.refused >= 0 || w.segments == 0 || (w.nicHolds > 0 && sender.peerCumulative - w.lastPsn > 0)) {
            return Long.MAX_VALUE; // (acknowledged, waiting only for the driver to free its memory: nothing to probe)
        }
        return Math.max(lastProbeAt, Math.max(lastAnswerAt, sender.lastProgress)) + probeInterval;
    }

    /** Whether a request sent in full waits to complete: the requester keeps its timers running for it. */
    boolean awaitsCompletion() {
        return sq.head != sq.nextToSend;
    }

    /** The RNR timer ran out: what was held goes again. */
    int resumeAfterRnr(long now) {
        rnrHolding = false;
        rnrResumedAt = now;
        return sender.resumeHeld(now, listener);
    }

    private State errorRetry() {
        counters.rcRetryExceeded++;
        fail(sq.oldestNotDone(), WcStatus.RETRY_EXCEEDED_ERROR); // as verbs blames the one it was waiting on
        return State.ERROR;
    }

    private void fail(int s, int status) {
        errorSlot = s;
        errorStatus = status;
    }

    /** The QP fails at request {@link #errorSlot} (-1: none of the application's): before it SUCCESS, it its status, after it flushed. */
    private State error(long now) {
        reclaimHeld();
        boolean reached = errorSlot < 0;
        for (long q = sq.head; q != sq.tail; q++) {
            int h = sq.slot(q);
            RcSendSlot w = sq.get(h);
            w.ending = true;
            if (!reached && h == errorSlot) {
                reached = true;
                w.endStatus = errorStatus; // its own status, whatever is still outstanding before it
            } else {
                w.endStatus = !reached && w.done ? WcStatus.SUCCESS : WcStatus.WR_FLUSH_ERROR;
            }
        }
        drain(false);
        rc.enterError(qp, now);
        return State.DONE;
    }
}
