package io.srdnic.srd.transport.rc;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.AckWriter;
import io.srdnic.srd.transport.port.CycleClock;
import io.srdnic.srd.transport.port.HeldPacketPool;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.RdmaLanding;
import io.srdnic.srd.transport.port.TransportPort;
import io.srdnic.srd.transport.qp.QpEvents;
import io.srdnic.srd.transport.qp.ReceiveQueue;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;

/**
 * RC's message layer, receiving half, for one QP: executes the peer's packets strictly in PSN
 * order from the QP's RQ PSN, as an IB responder does, while the packets themselves may arrive in
 * any order (sprayed over paths, retransmitted): one ahead of the expected PSN waits in the
 * {@link RcReorderBuffer} and is selectively acknowledged; one behind it is a duplicate, answered
 * with an ACK and never executed twice.
 * <p>
 * A SEND takes the next receive at its FIRST packet, fills it segment by segment, and completes
 * it at its LAST; an RDMA WRITE lands where its header says, after the same memory checks as on
 * SRD (plus the QP's own remote-access flags); a WRITE with immediate consumes a receive at its
 * last packet; a READ is answered from this QP's sending half, and so is an atomic, which runs when
 * its PSN is reached ({@link RcAtomics}) and answers with the value it found: strict PSN order is
 * what makes it run exactly once, however often it is sent. A message whose receive is not yet
 * posted is refused with an RNR NAK carrying the QP's min_rnr_timer and is not held, so the
 * requester sends it again after the timer. Any other violation is a fatal NAK (REMOTE_ACCESS,
 * INVALID_REQUEST or REMOTE_OPERATION) and puts this QP in ERROR too, as rxe does.
 * <p>
 * An SRC QP (seed 001) runs exactly these rules; then each request packet's SRQ number names the
 * SRQ it is for, which must exist and be in the QP's SRC domain (else a NAK, INVALID_REQUEST, and
 * the QP to ERROR): a SEND takes its receive from that SRQ and completes on that SRQ's CQ, and
 * RDMA and atomics are checked against that SRQ's protection domain instead of the QP's.
 * <p>
 * ACKs are coalesced: one per QP per duty cycle, acknowledging everything executed (cumulative:
 * the expected PSN) and held (selective bits), and carrying the NAK if there is one.
 * <p>
 * A packet goes through named stages as in rxe_resp.c ({@link Stage}: CHK_PSN, CHK_OP_SEQ,
 * CHK_OP_VALID, CHK_RESOURCE, CHK_LENGTH, CHK_RKEY, EXECUTE, COMPLETE, ACKNOWLEDGE and the exits),
 * each a short method returning the next; {@link #run} is the loop.
 */
public final class RcResponder {
    /** The packet executed; the expected PSN moves past it. */
    private static final int DONE = 0;
    /** Not executed for now (no READ or atomic answer slot): left unacknowledged, the requester sends it again. */
    private static final int LATER = -1;
    /** The QP went to ERROR while executing it (its CQ overran): nothing more to say. */
    private static final int QP_FAILED = -2;

    private final CycleClock clock;
    private final SrcSrqTable srcSrqs;
    private final RcConnections rc;
    private final SrdCounters counters;
    private final MemoryRegions regions;
    private final AckWriter acks;
    private final QpEvents errors;
    private final DeviceQp qp;
    private final RcRequester requester;
    private final int window;
    private final RcReorderBuffer held;
    /** The device's pool the held packets come from (shared by every RC and SRC QP). */
    private final HeldPacketPool heldPackets;
    /** An SRC QP: request packets name their SRQ, which says where receives, completions and protection come from. */
    private final boolean src;

    // Where the packet being executed takes its receive, completes it, and is checked for RDMA: the QP's
    // receive queue, receive CQ and protection domain on RC; on SRC those of the SRQ the packet names.
    private ReceiveQueue rq;
    private CompletionQueue cq;
    private int pd;
    private SharedReceiveQueue named;

    /** The PSN executed next: every one before it is done. */
    int expectedPsn;
    /** Receive-consuming messages completed: the sequence number the next one must carry. */
    private int completedOrdinal;
    // The receive a SEND in progress fills (taken at its FIRST packet, so no other QP of an SRQ can take it meanwhile).
    private boolean inMessage;
    private long receiveWrId;
    private MemorySegment receiveBuffer;
    private long receiveOffset;
    private int receiveCapacity;
    /** The region the receive was posted from (0: none named): checked for every packet, as it may be deregistered mid-message. */
    private int receiveKey;
    private int receivedLength;
    /** The CQ the receive being filled completes on, and (SRC) the SRQ it came from, which every packet of its message must name. */
    private CompletionQueue receiveCq;
    private SharedReceiveQueue receiveSrq;

    // The ACK owed this cycle, for the last packet heard.
    boolean ackOwed;
    private int ackPsn;
    private long ackTimestamp;
    /** A duplicate arrived since the last ACK: the next one reports it ({@code FLAG_DUPLICATE}, as TCP's DSACK). */
    private boolean duplicateOwed;
    private int duplicatePsn;
    private long ackMac;
    private int ackIp;
    private int ackPort;
    private boolean nakOwed;
    private int nakPsn;
    private int nakReason;
    private int nakDetail;
    // A fatal NAK waiting for the answers owed to READs and atomics executed before it (see refuse).
    private boolean refusing;
    private int refusedPsn;
    private int refusedReason;
    // The fatal NAK sent, repeated to a retransmission of the request it refused (the NAK rides a lossy ACK).
    private boolean fatalNakSent;
    private int fatalNakPsn;
    private int fatalNakReason;
    /** A sequence NAK went for the gap at the expected PSN: no other until that PSN is executed (rxe's sent_psn_nak). */
    private boolean sequenceNakSent;

    public RcResponder(TransportPort port, SrcSrqTable srcSrqs, DeviceQp qp, RcRequester requester, TransportConfig config, AckWriter acks,
                       QpEvents errors, RcConnections rc, CycleClock clock) {
        this.clock = clock;
        this.srcSrqs = srcSrqs;
        this.rc = rc;
        this.counters = port.counters;
        this.regions = port.regions;
        this.acks = acks;
        this.errors = errors;
        this.qp = qp;
        this.requester = requester;
        this.window = config.window();
        this.heldPackets = port.heldPackets;
        this.held = new RcReorderBuffer(window, heldPackets);
        this.src = qp.type == QpType.SRC;
    }

    /** RTR: the peer's first PSN is the QP's RQ PSN. */
    void start() {
        expectedPsn = qp.rqPsn;
        completedOrdinal = 0;
        nakOwed = false; // a NAK of the connection before a RESET must not reach this one (a fatal NAK's ERROR keeps it: it must go)
        refusing = false;
        fatalNakSent = false;
        sequenceNakSent = false;
        inMessage = false;
        held.clear();
        rq = qp.receives; // on RC for good (an SRQ's ring if it has one); on SRC set per packet
        cq = qp.recvCq;
        pd = qp.pd;
    }

    /** The QP leaves service: a receive being filled completes with {@code status} (silently when -1); nothing held stays. */
    void flush(int status) {
        if (inMessage && status >= 0 && !receiveCq.push(receiveWrId, status, WcOpcode.RECV, 0, false, 0, qp.qpn, 0, 0)) {
            errors.onCqOverrun(receiveCq);
        }
        inMessage = false;
        receiveBuffer = null;
        receiveSrq = null;
        named = null;
        refusing = false;
        held.clear();
    }

    /**
     * The responder's stages, named as rxe_resp.c's {@code enum resp_states}: a packet arrives at
     * GET_REQ; one at the expected PSN runs CHK_OP_SEQ … COMPLETE, then ACKNOWLEDGE; the exits are
     * DUPLICATE, HOLD (ahead of the expected PSN), WAIT (no answer slot yet), ERR_RNR, ERR_NAK (a
     * fatal NAK) and FAILED (the QP went to ERROR while executing). A held packet reached later runs
     * the same stages from CHK_SRQ, without the arrival's ACKNOWLEDGE or exits.
     */
    enum Stage {
        GET_REQ, CHK_PSN, DUPLICATE, CHK_RECEIVE, HOLD, CHK_SRQ, CHK_OP_SEQ, CHK_OP_VALID, CHK_RESOURCE, CHK_LENGTH, CHK_RKEY,
        EXECUTE, COMPLETE, ACKNOWLEDGE, WAIT, ERR_RNR, ERR_NAK, FAILED, DONE
    }

    // The packet going through the stages and what they found.
    private Mbuf packet;
    private int packetType;
    private int packetPsn;
    /** Whether the packet just arrived (its exits answer it) or was held and is run now (its caller handles the result). */
    private boolean arrived;
    /** DONE, LATER, QP_FAILED, or the DropReason of a NAK. */
    private int result;
    private MemorySegment rdmaMemory;
    private long rdmaOffset;
    private int atomicRegion;

    /** A packet of the connection arrives (the transport found this QP by its destination QPN). */
    void onData(Mbuf m, int type, long now) {
        packet = m;
        packetType = type;
        packetPsn = SrdHeader.psn(m);
        arrived = true;
        run(Stage.GET_REQ, now);
    }

    /** Executes one packet at the expected PSN, held until now: DONE, LATER, QP_FAILED, or the DropReason of a NAK. */
    private int execute(Mbuf m, long now) {
        packet = m;
        packetType = SrdHeader.type(m);
        packetPsn = expectedPsn;
        arrived = false;
        result = DONE;
        run(Stage.CHK_SRQ, now);
        return result;
    }

    private void run(Stage start, long now) {
        Stage s = start;
        while (s != Stage.DONE) {
            s = switch (s) {
                case GET_REQ -> getReq();
                case CHK_PSN -> checkPsn();
                case DUPLICATE -> duplicate();
                case CHK_RECEIVE -> checkReceive();
                case HOLD -> hold();
                case CHK_SRQ -> checkSrq();
                case CHK_OP_SEQ -> checkOpSequence();
                case CHK_OP_VALID -> checkOpValid();
                case CHK_RESOURCE -> checkResource();
                case CHK_LENGTH -> checkLength();
                case CHK_RKEY -> checkRkey();
                case EXECUTE -> executeRequest(now);
                case COMPLETE -> complete();
                case ACKNOWLEDGE -> acknowledge(now);
                case WAIT -> waitForAnswerSlot();
                case ERR_RNR -> rnrNak();
                case ERR_NAK -> fatalNak(now);
                case FAILED, DONE -> Stage.DONE;
            };
        }
    }

    /** Ends the stages with {@code r}: an arrival goes to its exit, a held packet back to its caller. */
    private Stage exit(int r) {
        result = r;
        if (!arrived) {
            return Stage.DONE;
        }
        return switch (r) {
            case LATER -> Stage.WAIT;
            case QP_FAILED -> Stage.FAILED;
            case DropReason.RNR -> Stage.ERR_RNR;
            default -> Stage.ERR_NAK;
        };
    }

    /** Is the QP receiving, and is the packet from its peer? */
    private Stage getReq() {
        Mbuf m = packet;
        if (refusing && qp.state.canReceive() && SrdHeader.sourceQpn(m) == qp.destQpn && Ipv4UdpFrame.sourceIp(m) == requester.remoteIp) {
            if (packetPsn - expectedPsn < 0 || held.holds(packetPsn)) {
                return Stage.DUPLICATE; // executed before the refused request (or answered below): acknowledged again
            }
            if (packetType == PacketType.READ_RESPONSE && packetPsn - expectedPsn < window) {
                return answerWhileRefusing();
            }
        }
        if (!qp.state.canReceive() || refusing) {
            int since = packetPsn - fatalNakPsn;
            if (fatalNakSent && qp.state == QpState.ERROR && since > -window && since < window && SrdHeader.sourceQpn(m) == qp.destQpn
                && Ipv4UdpFrame.sourceIp(m) == requester.remoteIp) {
                // The NAK was lost: the requester sends again what followed the refused packet (or that packet, unless
                // it was acknowledged selectively while held, early), or what came before it, whose ACK the lost one was,
                // or probes for what it still waits on: it is told again (cumulatively to the refused PSN, and the NAK).
                nak(fatalNakPsn, fatalNakReason, 0);
                oweAck(m, fatalNakPsn);
            }
            counters.rcRefused++; // before RTR, or in ERROR (or about to be: a fatal NAK waits for answers): as verbs, silently dropped
            return Stage.DONE;
        }
        if (Ipv4UdpFrame.sourceIp(m) != requester.remoteIp || SrdHeader.sourceQpn(m) != qp.destQpn) {
            counters.rcForeign++; // not our peer's QP: a connection admits no one else
            return Stage.DONE;
        }
        return Stage.CHK_PSN;
    }

    /**
     * While a fatal NAK waits for the peer to acknowledge the answers this QP owes, the peer may be
     * refusing this QP's own request and waiting the same way (both ends refuse at once): the answers
     * it sends this QP's READs and atomics ride its PSN space after the refused request, which is never
     * executed. Each would wait for the other for ever (or until a retry budget ran out, failing READs
     * that had run). So an answer from the peer is placed now, whatever its PSN, and acknowledged
     * selectively (kept in the reorder buffer for its bit, never executed again): the peer's NAK can go.
     */
    private Stage answerWhileRefusing() {
        requester.completer.onReadResponse(packet, clock.now());
        if (qp.state != QpState.ERROR && held.put(packet, packetPsn)) {
            oweAck(packet, packetPsn);
        }
        return Stage.DONE;
    }

    private Stage checkPsn() {
        int ahead = packetPsn - expectedPsn;
        if (ahead >= window) {
            counters.outOfWindow++; // no honest requester sends a window past what we acknowledged
            return Stage.DONE;
        }
        if (ahead < 0 || held.holds(packetPsn)) {
            return Stage.DUPLICATE;
        }
        if (ahead > 0 && !sequenceNakSent) {
            // A gap: the packet at the expected PSN is lost or late. As IB's responder (a NAK sequence error,
            // once per gap), say which PSN is expected, so the requester sends it again at once rather than
            // at a retransmission timeout; the packet itself is still held (or, its receive missing, dropped).
            sequenceNakSent = true;
            nak(expectedPsn, DropReason.PSN_SEQUENCE, 0);
        }
        return Stage.CHK_RECEIVE;
    }

    /** Executed already, or held: acknowledged again, never executed twice. */
    private Stage duplicate() {
        counters.duplicates++;
        if (duplicateOwed && ackOwed) {
            writeAck(); // one report per ACK: one goes now with the last duplicate, the ACK still owed carries this one
        }
        oweAck(packet, packetPsn);
        duplicateOwed = true;
        duplicatePsn = packetPsn;
        return Stage.DONE;
    }

    /** A message that takes a receive: is one there for it (judged before it is held, so that it is not held for nothing)? */
    private Stage checkReceive() {
        boolean atExpected = packetPsn == expectedPsn;
        if (consumesReceive(packetType) && !receiveAvailable(packet, SrdHeader.msn(packet))) {
            qp.rnrDrops++;
            if (!atExpected) {
                // RNR is judged at the expected PSN only (IB: a packet ahead of it is a sequence error, and
                // CHK_PSN has said so for its gap): the messages before it may yet take or free receives, and an
                // RNR NAK would spend the requester's rnr_retry, even fail, for a request whose turn has not
                // come. Not held (it would hold a receive it may not get): the ACK owed carries the sequence NAK.
                oweAck(packet, packetPsn);
                return Stage.DONE;
            }
            nak(packetPsn, DropReason.RNR, qp.minRnrTimer);
            oweAck(packet, packetPsn);
            return Stage.DONE;
        }
        return atExpected ? Stage.CHK_SRQ : Stage.HOLD;
    }

    /** Ahead of the expected PSN: kept in the reorder buffer and acknowledged selectively. */
    private Stage hold() {
        if (held.put(packet, packetPsn)) {
            counters.rcHeldEarly++;
            oweAck(packet, packetPsn);
        } else if (heldPackets.isFull()) {
            counters.rcHeldPoolFull++; // not acknowledged: the requester sends it again
        }
        return Stage.DONE;
    }

    /** SRC: the SRQ the request names; RC: a request must name none (an SRC request on an RC QP names an SRQ nobody here offers). */
    private Stage checkSrq() {
        if (packetType == PacketType.READ_RESPONSE) {
            return Stage.CHK_OP_SEQ;
        }
        boolean namesSrq = (SrdHeader.flags(packet) & SrdHeader.FLAG_SRC) != 0;
        int refused = src ? target(packet) : namesSrq ? DropReason.REMOTE_INVALID_REQUEST : DONE;
        return refused != DONE ? exit(refused) : Stage.CHK_OP_SEQ;
    }

    /** Does the packet continue the message sequence: a SEND's FIRST outside a message and the rest inside it, the rest outside? */
    private Stage checkOpSequence() {
        int flags = SrdHeader.flags(packet);
        return switch (packetType) {
            case PacketType.SEND, PacketType.SEND_WITH_IMM -> {
                if (SrdHeader.msn(packet) != completedOrdinal) {
                    yield exit(DropReason.REMOTE_INVALID_REQUEST); // the message sequence is broken
                }
                boolean first = (flags & SrdHeader.FLAG_FIRST) != 0;
                // A FIRST inside a message, or a MIDDLE or LAST with no FIRST.
                yield first == inMessage ? exit(DropReason.REMOTE_INVALID_REQUEST) : Stage.CHK_OP_VALID;
            }
            case PacketType.RDMA_WRITE_WITH_IMM -> inMessage || SrdHeader.msn(packet) != completedOrdinal
                ? exit(DropReason.REMOTE_INVALID_REQUEST) : Stage.CHK_OP_VALID;
            default -> inMessage ? exit(DropReason.REMOTE_INVALID_REQUEST) : Stage.CHK_OP_VALID; // inside a SEND: the sequence is broken
        };
    }

    /** A packet type a responder executes, with a consistent RDMA header. */
    private Stage checkOpValid() {
        return switch (packetType) {
            case PacketType.SEND, PacketType.SEND_WITH_IMM, PacketType.ATOMIC_CMP_SWAP, PacketType.ATOMIC_FETCH_ADD,
                 PacketType.READ_RESPONSE -> Stage.CHK_RESOURCE;
            case PacketType.RDMA_WRITE, PacketType.RDMA_WRITE_WITH_IMM, PacketType.RDMA_READ ->
                RdmaHeader.isConsistent(packet, packetType == PacketType.RDMA_READ, RdmaHeader.MAX_DMA_LENGTH)
                    ? Stage.CHK_RESOURCE : exit(DropReason.REMOTE_INVALID_REQUEST);
            default -> exit(DropReason.REMOTE_INVALID_REQUEST);
        };
    }

    /**
     * The receive a message consumes: a SEND's FIRST takes the next one (none: RNR), whose region
     * must still be registered at every packet; a WRITE with immediate needs one and room on its CQ.
     */
    private Stage checkResource() {
        if (packetType == PacketType.SEND || packetType == PacketType.SEND_WITH_IMM) {
            if ((SrdHeader.flags(packet) & SrdHeader.FLAG_FIRST) != 0) {
                if (rq.isEmpty()) {
                    qp.rnrDrops++;
                    return exit(DropReason.RNR);
                }
                takeReceive();
            }
            if (!regions.admits(receiveKey, receiveBuffer, receiveOffset, receiveCapacity)) {
                // Its region was deregistered after the receive was posted, or since this message's FIRST
                // packet took it: nothing more lands there (verbs: a local protection error at the
                // responder, the requester hears a remote operational error).
                counters.receivesRegionGone++;
                failReceive(WcStatus.LOCAL_PROTECTION_ERROR);
                return exit(DropReason.REMOTE_OPERATION);
            }
        } else if (packetType == PacketType.RDMA_WRITE_WITH_IMM) {
            if (rq.isEmpty()) {
                qp.rnrDrops++;
                return exit(DropReason.RNR);
            }
            if (cq.isFull()) {
                return exit(overrun(cq));
            }
        }
        return Stage.CHK_LENGTH;
    }

    private void takeReceive() {
        ReceiveQueue r = rq;
        receiveCq = cq;
        receiveSrq = named;
        receiveWrId = r.headWrId();
        receiveBuffer = r.headBuffer();
        receiveOffset = r.headOffset();
        receiveCapacity = r.headLength();
        receiveKey = r.headKey();
        r.removeHead();
        receivedLength = 0;
        inMessage = true;
    }

    /** A SEND's bytes fit what is left of its receive (RDMA lengths were checked with their header). */
    private Stage checkLength() {
        if ((packetType == PacketType.SEND || packetType == PacketType.SEND_WITH_IMM)
            && receivedLength + SrdHeader.payloadLength(packet) > receiveCapacity) {
            failReceive(WcStatus.LOCAL_LENGTH_ERROR);
            return exit(DropReason.REMOTE_INVALID_REQUEST); // as verbs: the requester hears INVALID_REQUEST
        }
        return Stage.CHK_RKEY;
    }

    /** RDMA and atomics: the QP's remote-access flags, then a region of the right PD and access over the whole range. */
    private Stage checkRkey() {
        if (packetType == PacketType.ATOMIC_CMP_SWAP || packetType == PacketType.ATOMIC_FETCH_ADD) {
            int region = RcAtomics.check(regions, qp, pd, packet);
            if (region < 0) {
                return exit(-region);
            }
            atomicRegion = region;
        } else if (isRdma(packetType)) {
            int access = packetType == PacketType.RDMA_READ ? MemoryRegions.REMOTE_READ : MemoryRegions.REMOTE_WRITE;
            if ((qp.accessFlags & access) == 0) {
                return exit(DropReason.REMOTE_ACCESS); // the QP's own access flags first (ibv_modify_qp's qp_access_flags)
            }
            rdmaMemory = null;
            rdmaOffset = 0;
            int length = RdmaHeader.dmaLength(packet);
            if (length > 0) { // a zero-byte READ or WRITE names no memory: no rkey or address to check (IBTA C9-88, as rxe)
                long address = RdmaHeader.address(packet);
                int region = regions.find(RdmaHeader.rkey(packet), pd, address, length, access); // over the whole request's range
                if (region < 0) {
                    return exit(DropReason.REMOTE_ACCESS);
                }
                rdmaMemory = regions.segment(region);
                rdmaOffset = regions.offset(region, address);
            }
        }
        return Stage.EXECUTE;
    }

    private Stage executeRequest(long now) {
        Mbuf m = packet;
        switch (packetType) {
            case PacketType.SEND, PacketType.SEND_WITH_IMM -> {
                int data = SrdHeader.payloadLength(m);
                try {
                    m.copyTo(SrdHeader.PAYLOAD_OFFSET, receiveBuffer, receiveOffset + receivedLength, data);
                } catch (IllegalStateException closedBuffer) {
                    failReceive(WcStatus.LOCAL_PROTECTION_ERROR);
                    return exit(DropReason.REMOTE_OPERATION);
                }
                receivedLength += data;
            }
            case PacketType.RDMA_READ -> {
                boolean answered = requester.answerRead(SrdHeader.immediate(m), RdmaHeader.rkey(m), rdmaMemory, rdmaOffset,
                    RdmaHeader.dmaLength(m));
                return answered ? done() : exit(LATER);
            }
            case PacketType.RDMA_WRITE, PacketType.RDMA_WRITE_WITH_IMM -> {
                int length = RdmaHeader.dmaLength(m);
                int data = SrdHeader.payloadLength(m) - RdmaHeader.LENGTH;
                long at = rdmaOffset + RdmaHeader.segmentOffset(m);
                int refused = length == 0 ? 0
                    : RdmaLanding.land(counters, qp, m, rdmaMemory, at, data, false, length, Ipv4UdpFrame.sourceIp(m));
                if (refused != 0) {
                    return exit(refused);
                }
            }
            case PacketType.ATOMIC_CMP_SWAP, PacketType.ATOMIC_FETCH_ADD -> {
                if (!requester.canAnswer()) {
                    counters.atomicsDeferred++;
                    return exit(LATER); // not run yet: once run, its answer must have a place to wait in
                }
                long original;
                try {
                    original = RcAtomics.execute(m, regions, atomicRegion);
                } catch (IllegalStateException freedMemory) {
                    return exit(DropReason.REMOTE_ACCESS);
                }
                requester.answerAtomic(SrdHeader.immediate(m), original);
                return done();
            }
            default -> { // READ_RESPONSE: our own READ's or atomic's answer, placed by the completer
                requester.completer.onReadResponse(m, now);
                return qp.state == QpState.ERROR ? exit(QP_FAILED) : done();
            }
        }
        return Stage.COMPLETE;
    }

    /** A SEND's LAST and a WRITE with immediate complete their receive. */
    private Stage complete() {
        Mbuf m = packet;
        boolean last = (SrdHeader.flags(m) & SrdHeader.FLAG_LAST) != 0;
        if ((packetType == PacketType.SEND || packetType == PacketType.SEND_WITH_IMM) && last) {
            boolean imm = packetType == PacketType.SEND_WITH_IMM;
            inMessage = false;
            receiveBuffer = null;
            completedOrdinal++;
            if (!receiveCq.push(receiveWrId, WcStatus.SUCCESS, imm ? WcOpcode.RECV_WITH_IMM : WcOpcode.RECV, receivedLength, imm,
                SrdHeader.immediate(m), qp.qpn, SrdHeader.sourceQpn(m), Ipv4UdpFrame.sourceIp(m))) {
                return exit(overrun(receiveCq));
            }
            counters.delivered++;
        } else if (packetType == PacketType.RDMA_WRITE_WITH_IMM) {
            long wr = rq.headWrId();
            rq.removeHead();
            cq.push(wr, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, RdmaHeader.dmaLength(m), true, SrdHeader.immediate(m), qp.qpn,
                SrdHeader.sourceQpn(m), Ipv4UdpFrame.sourceIp(m));
            counters.delivered++;
            completedOrdinal++;
        }
        return done();
    }

    /** The packet executed: an arrival moves the expected PSN and is acknowledged; a held one's caller does that. */
    private Stage done() {
        result = DONE;
        return arrived ? Stage.ACKNOWLEDGE : Stage.DONE;
    }

    /** The expected PSN moves past the packet, what was held behind it runs, and an ACK is owed. */
    private Stage acknowledge(long now) {
        Mbuf m = packet;
        int psn = packetPsn;
        expectedPsn++;
        sequenceNakSent = false; // the gap's episode is over: a packet ahead of the new expected PSN is a new one
        executeHeld(now);
        oweAck(m, psn);
        return Stage.DONE;
    }

    /**
     * A READ or atomic with no answer slot free yet: it waits here (the ACK says so, FLAG_HELD) and
     * runs once one frees, rather than be dropped, resent, and spend the requester's retries.
     */
    private Stage waitForAnswerSlot() {
        if (held.put(packet, packetPsn)) {
            oweAck(packet, packetPsn);
            rc.activate(requester);
        }
        return Stage.DONE;
    }

    private Stage rnrNak() {
        nak(packetPsn, DropReason.RNR, qp.minRnrTimer);
        oweAck(packet, packetPsn);
        return Stage.DONE;
    }

    private Stage fatalNak(long now) {
        oweAck(packet, packetPsn);
        refuse(packetPsn, result, now);
        return Stage.DONE;
    }

    /**
     * Executes the held packets the expected PSN has reached, until a gap or one that must wait.
     * When some ran and no packet arrival owes the ACK already (a slot freed, a timer), one is owed
     * here: the requester completes a request only once the cumulative ACK passes it.
     */
    int executeHeld(long now) {
        int n = 0;
        while (held.count() > 0 && held.holds(expectedPsn)) {
            Mbuf m = held.get(expectedPsn);
            int result = execute(m, now);
            if (qp.state == QpState.ERROR) {
                return n; // executing it failed the QP (a refused READ's answer, a CQ overrun): the flush emptied the buffer
            }
            if (result == LATER || result == DropReason.RNR) {
                break; // its receive went to another QP of the SRQ meanwhile, or no answer slot: tried again later
            }
            held.remove(expectedPsn);
            if (result != DONE) {
                if (result > 0) {
                    refuse(expectedPsn, result, now);
                }
                return n;
            }
            expectedPsn++;
            n++;
        }
        if (n > 0) {
            sequenceNakSent = false;
            reoweAck();
        }
        return n;
    }

    /** Whether a held packet waits at the expected PSN (its receive or answer slot was not there): retried every cycle. */
    boolean stalled() {
        return !refusing && held.count() > 0 && held.holds(expectedPsn);
    }

    /**
     * Request {@code psn} is refused with a fatal NAK ({@code reason}): the NAK is sent and the QP
     * goes to ERROR, as rxe does, but not before the answers owed to the READs and atomics executed
     * before it have all been delivered (acknowledged): IB's responder sends those responses in PSN
     * order ahead of the NAK, and they travel here in this QP's own PSN space, which the QP's ERROR
     * would empty. Meanwhile nothing more is executed and the request's retransmissions are dropped.
     */
    private void refuse(int psn, int reason, long now) {
        if (requester.owesAnswers()) {
            refusing = true;
            refusedPsn = psn;
            refusedReason = reason;
            held.clear();
            return;
        }
        nak(psn, reason, 0);
        reoweAck();
        fatalNakSent = true;
        fatalNakPsn = psn;
        fatalNakReason = reason;
        rc.enterError(qp, now);
    }

    /** The answers a deferred fatal NAK waited for are delivered: it goes now, and the QP to ERROR. */
    void refuseIfAnswered(long now) {
        if (refusing && !requester.owesAnswers()) {
            refusing = false;
            refuse(refusedPsn, refusedReason, now);
        }
    }

    private static boolean isRdma(int type) {
        return type == PacketType.RDMA_WRITE || type == PacketType.RDMA_WRITE_WITH_IMM || type == PacketType.RDMA_READ;
    }

    private static boolean consumesReceive(int type) {
        return type == PacketType.SEND || type == PacketType.SEND_WITH_IMM || type == PacketType.RDMA_WRITE_WITH_IMM;
    }

    /**
     * Whether the receive message {@code ordinal} will take is posted: the one being filled, or
     * the ring's entry as far down as the messages before it. Receives are taken in order, so one
     * available stays available (on the QP's own ring). On SRC the same count is asked of the SRQ
     * the packet names: the messages before it may be for other SRQs, so this may ask for more
     * receives than it needs (an RNR NAK too many, never a message held that will find none of
     * this QP's taking). An SRQ number that names none of the domain's is refused at execution.
     */
    private boolean receiveAvailable(Mbuf m, int ordinal) {
        int before = ordinal - completedOrdinal;
        if (before < 0) {
            return true; // a stale sequence number: execution refuses it
        }
        if (inMessage) {
            if (before == 0) {
                return true;
            }
            before--;
        }
        if (src) {
            SharedReceiveQueue s = (SrdHeader.flags(m) & SrdHeader.FLAG_SRC) == 0 ? null : srcSrqs.get(SrdHeader.srqNumber(m));
            return s == null || s.srcDomain != qp.srcDomain || before < s.receives.size();
        }
        return before < qp.receives.size();
    }

    /**
     * SRC: after RC's transport checks, the SRQ the request packet names becomes the one it takes
     * its receive from, completes on and is protection-checked against; DONE, or the NAK's
     * DropReason: no SRQ number (an RC requester), a number naming no SRQ, an SRQ of another SRC
     * domain, or a packet of a SEND naming another SRQ than its first packet did.
     */
    private int target(Mbuf m) {
        if ((SrdHeader.flags(m) & SrdHeader.FLAG_SRC) == 0) {
            return DropReason.REMOTE_INVALID_REQUEST;
        }
        SharedReceiveQueue s = srcSrqs.get(SrdHeader.srqNumber(m));
        if (s == null) {
            counters.srcUnknownSrq++;
            return DropReason.REMOTE_INVALID_REQUEST;
        }
        if (s.srcDomain != qp.srcDomain) {
            counters.srcDomainMismatch++;
            return DropReason.REMOTE_INVALID_REQUEST;
        }
        if (inMessage && s != receiveSrq) {
            return DropReason.REMOTE_INVALID_REQUEST;
        }
        named = s;
        rq = s.receives;
        cq = s.srcCq;
        pd = s.pd;
        return DONE;
    }

    /** The receive being filled ends in error: its completion says why, and the QP goes to ERROR after the NAK. */
    private void failReceive(int status) {
        inMessage = false;
        receiveBuffer = null;
        if (!receiveCq.push(receiveWrId, status, WcOpcode.RECV, receivedLength, false, 0, qp.qpn, 0, 0)) {
            errors.onCqOverrun(receiveCq);
        }
    }

    /**
     * A receive completion did not fit {@code full}: the CQ is in error and its QPs in ERROR (an
     * SRC SRQ's CQ has no QP of its own, so this one goes to ERROR here).
     */
    private int overrun(CompletionQueue full) {
        errors.onCqOverrun(full);
        rc.enterError(qp, clock.now());
        return QP_FAILED;
    }

    // ---------------------------------------------------------------- acknowledgement

    /**
     * Notes a NAK for the ACK owed; one ACK carries one, so within a cycle a fatal NAK outranks an
     * RNR NAK, which outranks a sequence NAK, and of two RNR (or sequence) NAKs the lower PSN is kept:
     * the requester goes back to it.
     */
    private void nak(int psn, int reason, int detail) {
        counters.dropsSent[reason]++;
        if (nakOwed && (nakRank(nakReason) > nakRank(reason) || nakRank(nakReason) == 2
            || (reason == nakReason && psn - nakPsn > 0))) {
            return;
        }
        nakOwed = true;
        nakPsn = psn;
        nakReason = reason;
        nakDetail = detail;
    }

    /** 2: a fatal NAK, 1: RNR, 0: a sequence NAK. */
    private static int nakRank(int reason) {
        return reason == DropReason.PSN_SEQUENCE ? 0 : reason == DropReason.RNR ? 1 : 2;
    }

    /** Notes the ACK owed for packet {@code psn} (timed by its timestamp, back on the path it came by); one per QP per cycle. */
    private void oweAck(Mbuf m, int psn) {
        ackPsn = psn;
        ackTimestamp = SrdHeader.timestamp(m);
        ackMac = Ipv4UdpFrame.sourceMac(m);
        ackIp = Ipv4UdpFrame.sourceIp(m);
        ackPort = Ipv4UdpFrame.sourcePort(m);
        if (!ackOwed) {
            ackOwed = true;
            rc.oweAck(this);
        }
    }

    /** Owes an ACK to the peer of the last packet that owed one (its address and echo fields stand). */
    private void reoweAck() {
        if (!ackOwed && ackIp != 0) {
            ackOwed = true;
            rc.oweAck(this);
        }
    }

    /** Sends the ACK owed: cumulative up to the expected PSN, the held packets as selective bits, the NAK if any. */
    void sendAck() {
        ackOwed = false;
        writeAck();
    }

    private void writeAck() {
        int flags = held.holds(expectedPsn) ? SrdHeader.FLAG_RC | SrdHeader.FLAG_HELD : SrdHeader.FLAG_RC;
        Mbuf a = acks.begin(flags, nakOwed ? 1 : 0, qp.qpn, qp.destQpn, expectedPsn, 0, ackPsn, ackTimestamp, held);
        if (a == null) {
            return;
        }
        if (nakOwed) {
            SrdAck.drop(a, 0, nakPsn, nakReason, nakDetail);
            nakOwed = false;
        }
        if (duplicateOwed) {
            SrdAck.duplicate(a, duplicatePsn); // the requester learns its retransmission was spurious
            duplicateOwed = false;
        }
        acks.send(ackMac, ackIp, ackPort);
    }
}
