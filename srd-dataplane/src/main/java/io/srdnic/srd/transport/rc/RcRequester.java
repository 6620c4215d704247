package io.srdnic.srd.transport.rc;

import io.srdnic.pmd.ExternalBuffers;
import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.port.CycleClock;
import io.srdnic.srd.transport.port.FrameWriter;
import io.srdnic.srd.transport.port.GatherList;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.TransportPort;
import io.srdnic.srd.transport.port.TxBurst;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;

/**
 * RC's message layer, sending half, for one QP: its send queue on the QP's own reliability engine
 * (the PSN space starts at the QP's SQ PSN). A message is cut into packets of the path MTU
 * (FIRST/MIDDLE/LAST/ONLY by flags); the engine sprays them over the QP's paths or pins them to
 * one. Also sends this QP's answers to the peer's READs and atomics, from the same PSN space, ahead
 * of its own work. What comes back — ACKs, NAKs, READ and atomic responses — and the completion of
 * the send queue in post order are its {@link RcCompleter}'s, as rxe splits rxe_req.c from
 * rxe_comp.c; both work on the one {@link RcSendQueue} of {@link RcSendSlot}s.
 * <p>
 * An atomic is one packet with an {@link AtomicHeader}, answered like a READ of 8 bytes (the
 * remote word's original value, which lands in the local buffer in host byte order); READs and
 * atomics together are at most max_rd_atomic outstanding.
 * <p>
 * A SEND, WRITE or READ_RESPONSE packet with at least {@code zero-copy-min-bytes} of payload leaves
 * from the registered memory itself where the port allows it ({@link TxBurst#attach}), as SRD's do:
 * until the driver has freed it, its request does not complete and its slot (an answer's slot) is
 * not reused; {@link #released} ends the wait. A retransmission sends from the same memory again
 * with a ticket of its own.
 */
public final class RcRequester implements ReliableSender.Listener, ExternalBuffers.Released {
    /** The device's MTU: a path MTU never raises the packet size above it. */
    private final int deviceMtu;
    private final RcConnections rc;
    private final SrdCounters counters;
    private final TxBurst tx;
    private final MemoryRegions regions;
    private final int epoch;
    private final FrameWriter frames;
    final DeviceQp qp;
    final ReliableSender sender;
    private final int depth;
    /** The send queue, shared with the completer. */
    private final RcSendQueue sq;
    /** What comes back for this send queue: ACKs, NAKs, responses, completions, retries. */
    final RcCompleter completer;
    /** SRC QPs mark their request packets so (FLAG_SRC); 0 on RC. */
    private final int srcFlag;
    private int nextOrdinal;

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
    /** The smallest payload sent from registered memory without a copy (where the port allows it). */
    private final int zeroCopyMin;
    /** Packets of this QP whose memory the driver still reads. */
    private int nicHolds;

    /** On the transport's list of RC QPs with something to send or wait for. */
    boolean active;

    public RcRequester(TransportPort port, int qpIndexMask, int deviceMtu, DeviceQp qp, TransportConfig config, int sqDepth,
            FrameWriter frames,
                       RcConnections rc, CycleClock clock) {
        this.deviceMtu = deviceMtu;
        this.rc = rc;
        this.counters = port.counters;
        this.tx = port.tx;
        this.regions = port.regions;
        this.epoch = port.epoch;
        this.frames = frames;
        this.qp = qp;
        this.depth = sqDepth;
        this.sq = new RcSendQueue(sqDepth);
        this.sender = new ReliableSender(qp.qpn & qpIndexMask, config, counters, config.rcPaths());
        this.completer = new RcCompleter(qp, sender, sq, this, counters, clock, rc, config.rtoMaxNanos());
        srcFlag = qp.type == QpType.SRC ? SrdHeader.FLAG_SRC : 0;
        this.zeroCopyMin = tx.sendsExternalBuffers() ? config.zeroCopyMinBytes(frames.sumsInSoftware()) : Integer.MAX_VALUE;
    }

    // ---------------------------------------------------------------- the QP's life

    /** RTR: the peer's address, from the QP's address handle, and the packet sizes of its path MTU. */
    void connect(long mac, int ip, int port, int pathMtu) {
        remoteMac = mac;
        remoteIp = ip;
        remotePort = port;
        int payload = Math.min(pathMtu, deviceMtu);
        sendData = payload;
        rdmaData = Math.max(1, payload - RdmaHeader.LENGTH);
    }

    /** RTS: the PSNs start at the SQ PSN; retries as the QP's retry_cnt and local ACK timeout say. */
    void start(long now) {
        sender.ensureWindow();
        sender.reset(qp.sqPsn, now);
        nextOrdinal = 0; // the responder's count starts at RTR too
        sq.readsInFlight = 0;
        completer.start(now);
    }

    /**
     * Ends everything this QP sends: its requests complete with {@code status} in order (silently
     * when -1: the QP was reset or destroyed), the answers it owes are dropped, the window empties.
     */
    void flush(int status, long now) {
        completer.flush(status);
        sq.nextToSend = sq.tail;
        answers.clear();
        sq.readsInFlight = 0;
        if (sender.hasWindow()) {
            sender.reset(sender.nextPsn, now);
        }
    }

    // ---------------------------------------------------------------- posting and scheduling

    public boolean isFull() {
        return sq.isFull();
    }

    /**
     * Queues the work request {@code wr} (the transport checked the QP state, depth, length and buffer), its fields read once
     * here into the slot; {@code srqn}: SRC's remote SRQ, else 0. Its gather list {@code wr.sges} (copied), when there is one,
     * holds the SGEs a SEND or WRITE gathers its bytes from, else {@code wr.buffer} at {@code wr.offset} does; an atomic
     * (see {@link #postAtomic}) takes 8 bytes there.
     */
    public void post(WorkRequest wr, int srqn) {
        int op = wr.opcode;
        boolean atomic = SendOpcode.isAtomic(op);
        GatherList gather = atomic ? null : wr.sges;
        long id = wr.wrId;
        MemorySegment buf = gather != null ? gather.segment(0) : wr.buffer;
        long off = gather != null ? gather.offset(0) : wr.offset;
        int len = atomic ? SendOpcode.ATOMIC_SIZE : wr.length;
        int imm = atomic ? 0 : wr.immediate;
        long raddr = wr.remoteAddress;
        int key = wr.rkey;
        boolean sig = wr.signaled;
        RcSendSlot w = sq.get(sq.slot(sq.tail++));
        if (gather != null) {
            w.sges.copyFrom(gather);
        } else if (w.sges.count() > 0) {
            w.sges.clear();
        }
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
        w.ending = false;
        w.nicHolds = 0; // a slot flushed by a reset or destroy while the driver read it: those releases name the old generation
        boolean awaitsResponse = SendOpcode.awaitsResponse(op);
        w.readLeft = awaitsResponse ? len : 0;
        int per = op == SendOpcode.SEND || op == SendOpcode.SEND_WITH_IMM ? sendData : rdmaData;
        w.segments = awaitsResponse ? 1 : Math.max(1, (int) ((len + (long) per - 1) / per));
        boolean consumesReceive = op == SendOpcode.SEND || op == SendOpcode.SEND_WITH_IMM || op == SendOpcode.RDMA_WRITE_WITH_IMM;
        w.ordinal = consumesReceive ? nextOrdinal++ : 0;
        if (awaitsResponse && qp.maxRdAtomic == 0) {
            // No READ or atomic may be outstanding on this QP (max_rd_atomic 0): it would wait for ever.
            w.refused = WcStatus.LOCAL_QP_OPERATION_ERROR;
            completer.completeReady();
        }
    }

    /**
     * Queues a request a local check refused with {@code status}: it is never sent, and completes
     * with its status in post order, after every request before it, when the QP goes to ERROR and
     * those after it are flushed (rule 1 of issue 25; rxe's requester meets the bad WQE so).
     * {@code releases}: whether its completion hands {@code buf} back to the layer above.
     */
    public void postRefused(long id, int op, MemorySegment buf, long off, int len, int status, boolean releases) {
        RcSendSlot w = sq.get(sq.slot(sq.tail++));
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
        w.ending = false;
        w.nicHolds = 0;
        completer.completeReady(); // at once if nothing is outstanding before it
    }

    /** Queues the atomic {@code wr} (checked as {@link #post} says) on 8 bytes at its offset of its buffer, with its operands. */
    public void postAtomic(WorkRequest wr, int srqn) {
        RcSendSlot w = sq.get(sq.slot(sq.tail));
        w.compareAdd = wr.compareOrAdd;
        w.swap = wr.swap;
        post(wr, srqn);
    }

    boolean hasWork() {
        return answers.hasUnsent() || (sq.nextToSend != sq.tail && !readBlocked());
    }

    private boolean readBlocked() {
        RcSendSlot w = sq.get(sq.slot(sq.nextToSend));
        if (w.refused >= 0) {
            return true; // a refused request stops the send queue: nothing after it goes
        }
        return SendOpcode.awaitsResponse(w.opcode) && w.nextSegment == 0 && sq.readsInFlight >= qp.maxRdAtomic;
    }

    /** Gives packets PSNs while the window allows, answers first; returns the packets sent. */
    int schedule(int allowance, long now) {
        int sent = 0;
        while (allowance > 0 && sender.canSendNextPsn()) {
            if (answers.hasUnsent()) {
                answers.sendNext(sender, depth, now, this);
            } else if (sq.nextToSend != sq.tail && !readBlocked()) {
                int s = sq.slot(sq.nextToSend);
                RcSendSlot w = sq.get(s);
                if (SendOpcode.awaitsResponse(w.opcode) && w.nextSegment == 0) {
                    sq.readsInFlight++;
                }
                int seg = w.nextSegment++;
                boolean last = w.nextSegment == w.segments;
                if (last) {
                    sq.nextToSend++;
                }
                w.inFlight++;
                int psn = sender.send(s, seg, now, this);
                w.firstPsn = seg == 0 ? psn : w.firstPsn;
                w.lastPsn = last ? psn : w.lastPsn;
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
        long tail = 0; // the payload's own mbuf, when it leaves from registered memory
        if (owner >= depth) {
            int a = owner - depth;
            type = PacketType.READ_RESPONSE;
            header = ReadResponseHeader.LENGTH;
            data = answers.write(m, a, seg, rdmaData, regions);
            if (data > 0 && answers.isRead(a)) {
                long from = answers.offset(a) + (long) seg * rdmaData;
                tail = data >= zeroCopyMin ? attachHeld(answers.memory(a), from, data, answers.holdToken(a, depth)) : 0;
                if (tail != 0) {
                    answers.held(a);
                } else {
                    data = answers.copy(m, a, from, data);
                }
            }
            flags |= (seg == 0 ? SrdHeader.FLAG_FIRST : 0) | (answers.isLast(a, seg) ? SrdHeader.FLAG_LAST : 0);
        } else {
            RcSendSlot w = sq.get(owner);
            int op = w.opcode;
            long at = 0;
            seq = w.ordinal;
            imm = w.immediate;
            srqn = w.remoteSrqn;
            flags |= srcFlag;
            boolean last = seg == w.segments - 1;
            flags |= (seg == 0 ? SrdHeader.FLAG_FIRST : 0) | (last ? SrdHeader.FLAG_LAST : 0);
            if (op == SendOpcode.SEND || op == SendOpcode.SEND_WITH_IMM) {
                type = op == SendOpcode.SEND ? PacketType.SEND : PacketType.SEND_WITH_IMM;
                at = (long) seg * sendData;
                data = (int) Math.min(sendData, w.length - at);
            } else if (op == SendOpcode.RDMA_READ) {
                type = PacketType.RDMA_READ;
                header = RdmaHeader.LENGTH;
                imm = sq.token(owner);
                RdmaHeader.write(m, w.remoteAddress, w.rkey, w.length, 0);
            } else if (SendOpcode.isAtomic(op)) {
                boolean cmpSwap = op == SendOpcode.ATOMIC_CMP_SWAP;
                type = cmpSwap ? PacketType.ATOMIC_CMP_SWAP : PacketType.ATOMIC_FETCH_ADD;
                header = AtomicHeader.LENGTH;
                imm = sq.token(owner);
                AtomicHeader.write(m, w.remoteAddress, w.rkey, cmpSwap ? w.swap : w.compareAdd, cmpSwap ? w.compareAdd : 0);
            } else {
                type = op == SendOpcode.RDMA_WRITE_WITH_IMM && last ? PacketType.RDMA_WRITE_WITH_IMM : PacketType.RDMA_WRITE;
                header = RdmaHeader.LENGTH;
                at = (long) seg * rdmaData;
                data = (int) Math.min(rdmaData, w.length - at);
                RdmaHeader.write(m, w.remoteAddress, w.rkey, w.length, (int) at);
            }
            tail = data >= zeroCopyMin && w.sges.count() == 0 ? attachHeld(w.buffer, w.offset + at, data, sq.token(owner)) : 0;
            if (tail != 0) {
                w.nicHolds++;
            } else {
                data = copyData(m, w, at, header, data);
            }
        }
        if (data < 0) { // the memory to send from was freed under it
            tx.giveBack(address);
            completer.failOwner(owner, WcStatus.LOCAL_PROTECTION_ERROR, now);
            return;
        }
        // SRC: the remote SRQ number rides in the destination context id field, 0 in RC packets (see SrdHeader.FLAG_SRC).
        SrdHeader.write(m, type, flags, header + data, 0, srqn, epoch, psn, flow.sendBase, qp.qpn, qp.destQpn, seq, imm, now);
        if (tail == 0) {
            frames.onPath(m, remoteMac, remoteIp, remotePort, path, SrdHeader.LENGTH + header + data);
        } else {
            frames.onPathChained(m, tx.external, remoteMac, remoteIp, remotePort, path, SrdHeader.LENGTH + header + data);
        }
        tx.emit(address);
    }

    /**
     * An mbuf pointing at the {@code data} bytes at {@code from} of {@code memory}, held for the
     * request or answer {@code token} names until the driver frees it; 0 (copy instead) for heap or
     * closed memory, or no ticket or mbuf left.
     */
    private long attachHeld(MemorySegment memory, long from, int data, int token) {
        long tail = tx.attach(memory, from, data, this, token);
        if (tail != 0) {
            nicHolds++;
            counters.zeroCopyPackets++;
        }
        return tail;
    }

    /**
     * The driver freed a packet sent from the memory of the request or answer {@code token} names:
     * a request waiting only for that completes now, an answer's slot frees. A token of a slot since
     * reused (flushed by a reset or destroy, posted again) names nothing.
     */
    @Override
    public void released(int token) {
        nicHolds--;
        int owner = RcSendQueue.slotOfToken(token);
        if (owner >= depth) {
            answers.released(owner - depth, token, depth);
        } else if (sq.token(owner) == token && --sq.get(owner).nicHolds == 0) {
            completer.letGo(owner);
        }
    }

    /** Before the send queue is flushed: the driver is asked to free what it still reads of this QP's memory. */
    void reclaimHeld() {
        if (nicHolds > 0) {
            tx.reclaim();
        }
    }

    /** Copies {@code data} bytes at {@code at} of {@code w}'s buffer after its headers; {@code data}, or -1: the buffer was freed. */
    private static int copyData(Mbuf m, RcSendSlot w, long at, int header, int data) {
        if (data > 0) {
            try {
                if (w.sges.count() > 0) {
                    w.sges.copyOut(at, m, SrdHeader.PAYLOAD_OFFSET + header, data);
                } else {
                    m.copyFrom(w.buffer, w.offset + at, SrdHeader.PAYLOAD_OFFSET + header, data);
                }
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
        completer.acked(owner);
    }

    @Override
    public void exhausted(ReliableSender flow, int psn, int owner, long now) {
        completer.retryExceeded(now);
    }

    // ---------------------------------------------------------------- answering the peer's READs and atomics

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

    /** Whether nothing is queued, in flight or held: the transport may stop visiting this QP. */
    boolean idle() {
        return sender.inflight == 0 && !hasWork() && !completer.rnrHolding && sq.readsInFlight == 0 && !completer.awaitsCompletion();
    }
}
