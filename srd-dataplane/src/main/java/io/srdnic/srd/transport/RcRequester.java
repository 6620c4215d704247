package io.srdnic.srd.transport;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.SrdConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.AckChecks;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.port.FrameWriter;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.TxBurst;
import io.srdnic.srd.transport.qp.LocalAckTimeout;
import io.srdnic.srd.transport.qp.RnrTimer;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * RC's message layer, sending half, for one QP: its send queue on the QP's own reliability engine
 * (the PSN space starts at the QP's SQ PSN). A message is cut into packets of the path MTU
 * (FIRST/MIDDLE/LAST/ONLY by flags); the engine sprays them over the QP's paths or pins them to
 * one. Work requests complete strictly in post order: one whose packets are all acknowledged (a
 * READ or an atomic: and all its response placed) waits for those before it. Also sends this QP's
 * answers to the peer's READs and atomics, from the same PSN space, ahead of its own work.
 * <p>
 * An atomic is one packet with an {@link AtomicHeader}, answered like a READ of 8 bytes (the
 * remote word's original value, which lands in the local buffer in host byte order); READs and
 * atomics together are at most max_rd_atomic outstanding.
 * <p>
 * Failure is the QP's, as in verbs: a fatal NAK (the responder's REMOTE_ACCESS, INVALID_REQUEST or
 * REMOTE_OPERATION), retry_cnt retransmissions of a packet past the local ACK timeout
 * (RETRY_EXCEEDED), or RNR NAKs past rnr_retry (RNR_RETRY_EXCEEDED, never with 7 = infinite)
 * complete the request that met it with that status, those before it that had succeeded with
 * SUCCESS, every later one with WR_FLUSH_ERROR, and put the QP in ERROR.
 */
final class RcRequester implements ReliableSender.Listener {
    /** Token bits naming the send-queue slot of a READ or atomic; the rest carry the slot's generation. */
    private static final int TOKEN_SLOT_BITS = 20;
    /** rnr_retry 7: retry for ever. */
    private static final int RNR_RETRY_INFINITE = 7;

    private final SrdTransport t;
    private final CycleClock clock;
    private final RcConnections rc;
    private final SrdCounters counters;
    private final TxBurst tx;
    private final MemoryRegions regions;
    private final int epoch;
    private final FrameWriter frames;
    final SrdQp qp;
    final ReliableSender sender;
    private final int depth;

    // The send queue, a ring in post order: [head, tail) posted and not completed; [nextToSend, tail) not all sent.
    private final RcSendSlot[] slots;
    /** SRC QPs mark their request packets so (FLAG_SRC); 0 on RC. */
    private final int srcFlag;
    private long head;
    private long tail;
    private long nextToSend;
    private int nextOrdinal;
    private int readsInFlight;
    /** How long READs and atomics may wait on answers with none arriving: twice the retry budget (Long.MAX_VALUE: for ever). */
    private long answerSilenceLimit = Long.MAX_VALUE;
    /** When an answer last arrived (or the QP started): silence is measured from it or from the sender's last progress. */
    private long lastAnswerAt;

    /** Answers to the peer's READs: their packets' owners are depth + slot. */
    private final RcAnswers answers = new RcAnswers(16);

    // The connection, fixed at RTR: the peer's address (copied from the address handle, as verbs copies it) and segment sizes.
    long remoteMac;
    int remoteIp;
    /** The address handle the connection's address was copied from (a new one on SQD -> SQD moves the connection). */
    int addressHandle;
    int remotePort;
    private int sendData;
    private int rdmaData;

    private int rnrLeft;
    boolean rnrHolding;
    long rnrUntil;
    /** When the last RNR wait ended: an RNR NAK answering a transmission sent before it is a late copy, already obeyed. */
    private long rnrResumedAt;
    /** On the transport's list of RC QPs with something to send or wait for. */
    boolean active;

    RcRequester(SrdTransport transport, SrdQp qp, SrdConfig config, int sqDepth, FrameWriter frames, RcConnections rc, CycleClock clock) {
        this.t = transport;
        this.clock = clock;
        this.rc = rc;
        this.counters = transport.port.counters;
        this.tx = transport.port.tx;
        this.regions = transport.port.regions;
        this.epoch = transport.port.epoch;
        this.frames = frames;
        this.qp = qp;
        this.depth = sqDepth;
        this.slots = new RcSendSlot[sqDepth];
        for (int i = 0; i < sqDepth; i++) {
            slots[i] = new RcSendSlot();
        }
        this.sender = new ReliableSender(qp.qpn & transport.qpIndexMask(), config, counters, config.rcPaths());
        srcFlag = qp.type == QpType.SRC ? SrdHeader.FLAG_SRC : 0;
    }

    // ---------------------------------------------------------------- the QP's life

    /** RTR: the peer's address, from the QP's address handle, and the packet sizes of its path MTU. */
    void connect(long mac, int ip, int port, int pathMtu) {
        remoteMac = mac;
        remoteIp = ip;
        remotePort = port;
        int payload = Math.min(pathMtu, t.mtu());
        sendData = payload;
        rdmaData = Math.max(1, payload - RdmaHeader.LENGTH);
    }

    /** RTS: the PSNs start at the SQ PSN; retries as the QP's retry_cnt and local ACK timeout say. */
    void start(long now) {
        sender.ensureWindow();
        sender.reset(qp.sqPsn, now);
        takeRetryLimits();
        rnrLeft = qp.rnrRetry;
        rnrHolding = false;
        rnrResumedAt = now; // nothing of this connection was sent before
        nextOrdinal = 0; // the responder's count starts at RTR too
        readsInFlight = 0;
        lastAnswerAt = now;
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
    }

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
        if (readsInFlight == 0 || sender.inflight > 0 || answerSilenceLimit == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return Math.max(lastAnswerAt, sender.lastProgress) + answerSilenceLimit;
    }

    /** The peer is given up on: RETRY_EXCEEDED_ERROR on the oldest request not done, as verbs blames the one it was waiting on. */
    private void retryExceeded(long now) {
        counters.rcRetryExceeded++;
        failAt(oldestNotDone(), WcStatus.RETRY_EXCEEDED_ERROR, now);
    }

    /**
     * Ends everything this QP sends: its requests complete with {@code status} in order (silently
     * when -1: the QP was reset or destroyed), the answers it owes are dropped, the window empties.
     */
    void flush(int status, long now) {
        while (head != tail) {
            complete(slot(head++), status);
        }
        nextToSend = tail;
        answers.clear();
        readsInFlight = 0;
        rnrHolding = false;
        if (sender.hasWindow()) {
            sender.reset(sender.nextPsn, now);
        }
    }

    // ---------------------------------------------------------------- posting and scheduling

    boolean isFull() {
        return tail - head >= depth;
    }

    /** Queues a work request (the transport checked the QP state, depth, length and buffer); {@code srqn}: SRC's remote SRQ, else 0. */
    void post(long id, int op, MemorySegment buf, long off, int len, int imm, long raddr, int key, boolean sig, int srqn) {
        int s = slot(tail++);
        RcSendSlot w = slots[s];
        w.remoteSrqn = srqn;
        w.opcode = op;
        w.wrId = id;
        w.buffer = buf;
        w.offset = off;
        w.length = len;
        w.immediate = imm;
        w.remoteAddress = raddr;
        w.rkey = key;
        w.signaled = sig;
        w.generation++;
        w.nextSegment = 0;
        w.inFlight = 0;
        w.done = false;
        w.refused = -1;
        w.releases = true;
        boolean awaitsResponse = SendOpcode.awaitsResponse(op);
        w.readLeft = awaitsResponse ? len : 0;
        int per = op == SendOpcode.SEND || op == SendOpcode.SEND_WITH_IMM ? sendData : rdmaData;
        w.segments = awaitsResponse ? 1 : Math.max(1, (int) ((len + (long) per - 1) / per));
        boolean consumesReceive = op == SendOpcode.SEND || op == SendOpcode.SEND_WITH_IMM || op == SendOpcode.RDMA_WRITE_WITH_IMM;
        w.ordinal = consumesReceive ? nextOrdinal++ : 0;
        if (awaitsResponse && qp.maxRdAtomic == 0) {
            // No READ or atomic may be outstanding on this QP (max_rd_atomic 0): it would wait for ever.
            w.refused = WcStatus.LOCAL_QP_OPERATION_ERROR;
            completeReady();
        }
    }

    /**
     * Queues a request a local check refused with {@code status}: it is never sent, and completes
     * with its status in post order, after every request before it, when the QP goes to ERROR and
     * those after it are flushed (rule 1 of issue 25; rxe's requester meets the bad WQE so).
     * {@code releases}: whether its completion hands {@code buf} back to the layer above.
     */
    void postRefused(long id, int op, MemorySegment buf, long off, int len, int status, boolean releases) {
        RcSendSlot w = slots[slot(tail++)];
        w.opcode = SendOpcode.isValid(op) ? op : SendOpcode.SEND;
        w.wrId = id;
        w.buffer = buf;
        w.offset = off;
        w.length = len;
        w.signaled = true; // errors always complete
        w.generation++;
        w.nextSegment = 0;
        w.segments = 0;
        w.inFlight = 0;
        w.readLeft = 0;
        w.done = false;
        w.refused = status;
        w.releases = releases;
        completeReady(); // at once if nothing is outstanding before it
    }

    /** Queues an atomic (checked as {@link #post} says) on 8 bytes at {@code off} of {@code buf}, with its operands. */
    void postAtomic(long id, int op, MemorySegment buf, long off, long raddr, int key, long compareOrAdd, long swapValue, boolean sig,
                    int srqn) {
        RcSendSlot w = slots[slot(tail)];
        w.compareAdd = compareOrAdd;
        w.swap = swapValue;
        post(id, op, buf, off, SendOpcode.ATOMIC_SIZE, 0, raddr, key, sig, srqn);
    }

    boolean hasWork() {
        return answers.hasUnsent() || (nextToSend != tail && !readBlocked());
    }

    private boolean readBlocked() {
        int s = slot(nextToSend);
        if (slots[s].refused >= 0) {
            return true; // a refused request stops the send queue: nothing after it goes
        }
        return SendOpcode.awaitsResponse(slots[s].opcode) && slots[s].nextSegment == 0 && readsInFlight >= qp.maxRdAtomic;
    }

    /** Gives packets PSNs while the window allows, answers first; returns the packets sent. */
    int schedule(int allowance, long now) {
        int sent = 0;
        while (allowance > 0 && sender.canSendNextPsn()) {
            if (answers.hasUnsent()) {
                answers.sendNext(sender, depth, now, this);
            } else if (nextToSend != tail && !readBlocked()) {
                int s = slot(nextToSend);
                if (SendOpcode.awaitsResponse(slots[s].opcode) && slots[s].nextSegment == 0) {
                    readsInFlight++;
                }
                int seg = slots[s].nextSegment++;
                boolean last = slots[s].nextSegment == slots[s].segments;
                if (last) {
                    nextToSend++;
                }
                slots[s].inFlight++;
                int psn = sender.send(s, seg, now, this);
                slots[s].firstPsn = seg == 0 ? psn : slots[s].firstPsn;
                slots[s].lastPsn = last ? psn : slots[s].lastPsn;
            } else {
                break;
            }
            allowance--;
            sent++;
        }
        return sent;
    }

    // ---------------------------------------------------------------- the engine's events

    @Override
    public void emit(ReliableSender flow, int psn, int owner, int seg, int path, int xmit, long now) {
        long address = tx.take();
        if (address == 0) {
            return; // counted; the RTO sends it again
        }
        Mbuf m = tx.view.wrap(address);
        int flags = SrdHeader.FLAG_RC | (xmit > 1 ? SrdHeader.FLAG_RETRANSMISSION : 0);
        int type;
        int header = 0;
        int data = 0;
        int imm = 0;
        int seq = 0;
        int srqn = 0;
        if (owner >= depth) {
            int a = owner - depth;
            type = PacketType.READ_RESPONSE;
            header = ReadResponseHeader.LENGTH;
            data = answers.write(m, a, seg, rdmaData, regions);
            flags |= (seg == 0 ? SrdHeader.FLAG_FIRST : 0) | (answers.isLast(a, seg) ? SrdHeader.FLAG_LAST : 0);
        } else {
            int s = owner;
            int op = slots[s].opcode;
            long at = 0;
            seq = slots[s].ordinal;
            imm = slots[s].immediate;
            srqn = slots[s].remoteSrqn;
            flags |= srcFlag;
            boolean last = seg == slots[s].segments - 1;
            flags |= (seg == 0 ? SrdHeader.FLAG_FIRST : 0) | (last ? SrdHeader.FLAG_LAST : 0);
            if (op == SendOpcode.SEND || op == SendOpcode.SEND_WITH_IMM) {
                type = op == SendOpcode.SEND ? PacketType.SEND : PacketType.SEND_WITH_IMM;
                at = (long) seg * sendData;
                data = (int) Math.min(sendData, slots[s].length - at);
            } else if (op == SendOpcode.RDMA_READ) {
                type = PacketType.RDMA_READ;
                header = RdmaHeader.LENGTH;
                imm = token(s);
                RdmaHeader.write(m, slots[s].remoteAddress, slots[s].rkey, slots[s].length, 0);
            } else if (SendOpcode.isAtomic(op)) {
                boolean cmpSwap = op == SendOpcode.ATOMIC_CMP_SWAP;
                type = cmpSwap ? PacketType.ATOMIC_CMP_SWAP : PacketType.ATOMIC_FETCH_ADD;
                header = AtomicHeader.LENGTH;
                imm = token(s);
                AtomicHeader.write(m, slots[s].remoteAddress, slots[s].rkey, cmpSwap ? slots[s].swap : slots[s].compareAdd, cmpSwap ? slots[s].compareAdd : 0);
            } else {
                type = op == SendOpcode.RDMA_WRITE_WITH_IMM && last ? PacketType.RDMA_WRITE_WITH_IMM : PacketType.RDMA_WRITE;
                header = RdmaHeader.LENGTH;
                at = (long) seg * rdmaData;
                data = (int) Math.min(rdmaData, slots[s].length - at);
                RdmaHeader.write(m, slots[s].remoteAddress, slots[s].rkey, slots[s].length, (int) at);
            }
            data = copyData(m, s, at, header, data);
        }
        if (data < 0) { // the memory to send from was freed under it
            tx.giveBack(address);
            failOwner(owner, WcStatus.LOCAL_PROTECTION_ERROR, now);
            return;
        }
        // SRC: the remote SRQ number rides in the destination context id field, 0 in RC packets (see SrdHeader.FLAG_SRC).
        SrdHeader.write(m, type, flags, header + data, 0, srqn, epoch, psn, flow.sendBase, qp.qpn, qp.destQpn, seq, imm, now);
        frames.onPath(m, remoteMac, remoteIp, remotePort, path, SrdHeader.LENGTH + header + data);
        tx.emit(address);
    }

    /** Copies {@code data} bytes at {@code at} of request {@code s}'s buffer after its headers; returns {@code data}, or -1 if the buffer was freed. */
    private int copyData(Mbuf m, int s, long at, int header, int data) {
        if (data > 0) {
            try {
                m.copyFrom(slots[s].buffer, slots[s].offset + at, SrdHeader.PAYLOAD_OFFSET + header, data);
            } catch (IllegalStateException closedBuffer) {
                return -1;
            }
        }
        return data;
    }

    @Override
    public void acked(ReliableSender flow, int psn, int owner, int seg) {
        if (owner >= depth) {
            answers.acked(owner - depth);
            return;
        }
        slots[owner].inFlight--;
        completeReady();
    }

    @Override
    public void exhausted(ReliableSender flow, int psn, int owner, long now) {
        retryExceeded(now);
    }

    /**
     * Completes, in post order, every request at the head that is done: all its packets sent and
     * executed — the cumulative ACK past its last PSN; a selective ACK only says a packet is held,
     * and a held packet can still be refused when its turn comes — and a READ's data (an atomic's
     * answer) all placed.
     */
    private void completeReady() {
        while (head != tail) {
            int h = slot(head);
            if (!slots[h].done) {
                if (slots[h].refused >= 0) {
                    failAt(h, slots[h].refused, clock.now()); // everything before it completed: now its error, ERROR, the rest flushed
                    return;
                }
                if (slots[h].nextSegment != slots[h].segments || slots[h].inFlight != 0 || slots[h].readLeft != 0 || sender.peerCumulative - slots[h].lastPsn <= 0) {
                    return;
                }
                slots[h].done = true;
                if (SendOpcode.awaitsResponse(slots[h].opcode)) {
                    readsInFlight--;
                    rc.activate(this); // a READ or atomic waiting for max_rd_atomic may go now
                }
            }
            head++;
            complete(h, WcStatus.SUCCESS);
        }
    }

    /** The request whose packets include {@code psn}, already acknowledged selectively; {@code depth} (an answer of ours) if none. */
    private int ownerOfAcknowledged(int psn) {
        for (long q = head; q != tail && slots[slot(q)].nextSegment > 0; q++) { // sent in post order: the unsent come last
            int s = slot(q);
            if (psn - slots[s].firstPsn >= 0 && (slots[s].nextSegment < slots[s].segments || slots[s].lastPsn - psn >= 0)) {
                return s;
            }
        }
        return depth;
    }

    private void complete(int s, int status) {
        MemorySegment buf = slots[s].buffer;
        slots[s].buffer = null;
        if (status < 0) {
            qp.sqOutstanding--;
        } else {
            counters.sendCompletions[status]++;
            qp.completeSend(slots[s].wrId, SendOpcode.completionOpcode(slots[s].opcode), status, slots[s].length, slots[s].signaled);
        }
        if (slots[s].releases) {
            qp.released(buf, slots[s].offset);
        }
    }

    // ---------------------------------------------------------------- acknowledgements

    /** An RC ACK from the peer, checked to be from it and for this QP; {@code sack} holds its selective bits. */
    void onAck(Mbuf m, long[] sack, long now) {
        int cumulative = SrdAck.cumulativePsn(m);
        int naks = SrdAck.dropCount(m);
        if (!sender.hasWindow() || !AckChecks.namesOnlySentPsns(sender, m, cumulative, sack, naks)) {
            counters.acksRefused++;
            return;
        }
        sender.onAckTiming(SrdAck.triggerPsn(m), SrdAck.echoedTimestamp(m), now, t.config().rtoMaxNanos() * 4);
        // What the responder executed first: a NAK names a packet every one before which was executed (it runs them in order).
        boolean progress = sender.onAcknowledged(cumulative, sack, this);
        if ((SrdHeader.flags(m) & SrdHeader.FLAG_HELD) != 0) {
            progress |= sender.acknowledgeOne(cumulative, this); // waits at the responder for it to run: not to be sent again
        }
        sender.advanceSendBase();
        completeReady(); // requests whose packets were all acknowledged selectively complete once the cumulative ACK passes them
        boolean rnr = false;
        for (int i = 0; i < naks; i++) {
            int psn = SrdAck.dropPsn(m, i);
            int owner = sender.owner(psn);
            int reason = SrdAck.dropReason(m, i);
            if (owner == ReliableSender.EMPTY) {
                if (reason == DropReason.RNR || psn - sender.peerCumulative < 0) {
                    continue; // a NAK repeated, for a packet already settled
                }
                // Acknowledged selectively while held, then refused when its turn came: its request fails all the same.
                owner = ownerOfAcknowledged(psn);
            }
            counters.dropsReceived[reason]++;
            if (reason == DropReason.RNR) {
                if (!rnrHolding && SrdAck.echoedTimestamp(m) - rnrResumedAt < 0) {
                    continue; // a late copy of a NAK whose wait is over: what it answered went again since
                }
                rnr = true;
                if (!onRnrNak(psn, owner, SrdAck.dropDetail(m, i), now)) {
                    return;
                }
            } else {
                failOwner(owner, switch (reason) {
                    case DropReason.REMOTE_ACCESS -> WcStatus.REMOTE_ACCESS_ERROR;
                    case DropReason.REMOTE_OPERATION -> WcStatus.REMOTE_OPERATION_ERROR;
                    default -> WcStatus.REMOTE_INVALID_REQUEST_ERROR;
                }, now);
                return;
            }
        }
        if (progress) {
            sender.lastProgress = now;
            if (!rnr) {
                rnrLeft = qp.rnrRetry; // as verbs counts it: RNR retries in a row, without progress between
            }
        }
        qp.rcResponder.refuseIfAnswered(now); // a fatal NAK of the responder's waited for the answers just acknowledged
        if (qp.state != QpState.ERROR) {
            if (qp.rcResponder.stalled() && canAnswer()) {
                qp.rcResponder.executeHeld(now); // an answer slot freed: the READ or atomic waiting for one runs now
            }
            sender.detectLosses(now, this);
        }
    }

    /** An RNR NAK for {@code psn}: hold it until the responder's timer runs out, or fail once rnr_retry is spent; false if the QP failed. */
    private boolean onRnrNak(int psn, int owner, int timerCode, long now) {
        if (!rnrHolding) {
            if (qp.rnrRetry != RNR_RETRY_INFINITE) {
                if (rnrLeft == 0) {
                    failOwner(owner, WcStatus.RNR_RETRY_EXCEEDED_ERROR, now);
                    return false;
                }
                rnrLeft--;
            }
            rnrHolding = true;
            rnrUntil = now + RnrTimer.nanos(timerCode & RnrTimer.MAX_CODE);
            rc.activate(this);
        }
        // As verbs goes back to the NAKed PSN: everything from it on not yet acknowledged waits out the timer too
        // (later segments of the message met no receive either; those the responder holds are acknowledged already).
        sender.holdFrom(psn);
        return true;
    }

    /** The RNR timer ran out: what was held goes again. */
    int resumeAfterRnr(long now) {
        rnrHolding = false;
        rnrResumedAt = now;
        return sender.resumeHeld(now, this);
    }

    // ---------------------------------------------------------------- failure

    private void failOwner(int owner, int status, long now) {
        failAt(owner >= depth ? -1 : owner, status, now);
    }

    /**
     * The QP fails at request {@code s} (-1: at none of the application's, an answer of ours):
     * what succeeded before it completes successfully, it with {@code status}, the rest flushed.
     */
    /** The slot of the oldest request not done (what verbs blames a transport failure on), or -1. */
    private int oldestNotDone() {
        for (long q = head; q != tail; q++) {
            if (!slots[slot(q)].done) {
                return slot(q);
            }
        }
        return -1;
    }

    private void failAt(int s, int status, long now) {
        boolean reached = s < 0;
        while (head != tail) {
            int h = slot(head++);
            if (!reached && h == s) {
                reached = true;
                complete(h, status); // its own status, whatever is still outstanding before it
            } else if (!reached && slots[h].done) {
                complete(h, WcStatus.SUCCESS);
            } else {
                complete(h, WcStatus.WR_FLUSH_ERROR);
            }
        }
        rc.enterError(qp, now);
    }

    // ---------------------------------------------------------------- RDMA READ and atomics, both ends

    /** Responder: answers a checked READ from this QP's own sending half; false when every answer slot is busy (the READ waits). */
    boolean answerRead(int token, int key, MemorySegment memory, long off, int len) {
        if (len == 0) {
            counters.rdmaReadsAnswered++;
            return true;
        }
        if (answers.isFull()) {
            counters.readsDeferred++;
            return false;
        }
        answers.addRead(token, key, memory, off, len, rdmaData);
        counters.rdmaReadsAnswered++;
        rc.activate(this);
        return true;
    }

    /** Responder: whether answers to the peer's READs or atomics are still owed (not all acknowledged). */
    boolean owesAnswers() {
        return !answers.isEmpty();
    }

    /** Responder: whether an answer slot is free, so that an atomic may run now (it must not run before its answer has a place). */
    boolean canAnswer() {
        return !answers.isFull();
    }

    /** Responder: owes the atomic {@code token} names {@code original}, the value it found (a slot is free: {@link #canAnswer}). */
    void answerAtomic(int token, long original) {
        answers.addAtomic(token, original);
        counters.atomicsExecuted++;
        rc.activate(this);
    }

    /**
     * Requester: places a READ_RESPONSE (executed in PSN order) in the READ or atomic it names,
     * which must be one of this QP's, waiting, and hold it (an atomic's: all of its 8 bytes at
     * once). A response naming none is a ghost and is ignored, as verbs ignores one; a response
     * that says the request was refused fails the QP.
     */
    void placeReadResponse(Mbuf m, long now) {
        int token = ReadResponseHeader.token(m);
        int s = token & ((1 << TOKEN_SLOT_BITS) - 1);
        int data = SrdHeader.payloadLength(m) - ReadResponseHeader.LENGTH;
        int at = ReadResponseHeader.readOffset(m);
        boolean atomic = s < depth && SendOpcode.isAtomic(slots[s].opcode);
        if (s >= depth || !isWaiting(s) || !SendOpcode.awaitsResponse(slots[s].opcode) || token(s) != token
            || ReadResponseHeader.readLength(m) != slots[s].length || at < 0 || data > slots[s].readLeft || (long) at + data > slots[s].length
            || (atomic && ReadResponseHeader.status(m) == 0 && data != SendOpcode.ATOMIC_SIZE)) {
            counters.readResponsesRefused++;
            return;
        }
        if (ReadResponseHeader.status(m) != 0) {
            failAt(s, ReadResponseHeader.status(m) == DropReason.REMOTE_ACCESS ? WcStatus.REMOTE_ACCESS_ERROR
                : WcStatus.REMOTE_OPERATION_ERROR, now);
            return;
        }
        try {
            if (atomic) {
                // A number on the wire, a word in host byte order in the local buffer, as verbs returns it.
                slots[s].buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, slots[s].offset, m.getLongBE(ReadResponseHeader.DATA_OFFSET));
            } else {
                m.copyTo(ReadResponseHeader.DATA_OFFSET, slots[s].buffer, slots[s].offset + at, data);
            }
        } catch (IllegalStateException closedBuffer) {
            failAt(s, WcStatus.LOCAL_PROTECTION_ERROR, now);
            return;
        }
        counters.readResponsesPlaced++;
        slots[s].readLeft -= data;
        lastAnswerAt = now;
        completeReady();
    }

    /** Whether slot {@code s} holds a request posted and not yet done. */
    private boolean isWaiting(int s) {
        long n = tail - head;
        long position = (s - slot(head) + depth) % depth;
        return position < n && !slots[s].done;
    }

    private int token(int s) {
        return (slots[s].generation << TOKEN_SLOT_BITS) | s;
    }

    private int slot(long sequence) {
        return (int) (sequence % depth);
    }

    /** Whether nothing is queued, in flight or held: the transport may stop visiting this QP. */
    boolean idle() {
        return sender.inflight == 0 && !hasWork() && !rnrHolding && readsInFlight == 0;
    }
}
