package io.srdnic.srd.transport.device;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.AddressHandles;
import io.srdnic.srd.transport.port.CycleClock;
import io.srdnic.srd.transport.port.GatherList;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.RcConnections;
import io.srdnic.srd.transport.srd.ContextTable;
import io.srdnic.srd.transport.srd.FlowKey;
import io.srdnic.srd.transport.srd.SendRequests;
import io.srdnic.srd.transport.srd.SrdContext;
import io.srdnic.srd.transport.srd.SrdRequester;
import io.srdnic.srd.transport.ud.UdDatagrams;
import io.srdnic.srd.wire.RdmaHeader;
import java.lang.foreign.MemorySegment;

/**
 * Posting a work request: the checks verbs makes before anything is queued (QP state, send queue
 * room, address handle, opcode for the QP type, length, buffer bounds), what a request refused
 * after posting completes with, and the hand-off to the message layer of its QP type — SRD's
 * request table and its context's queue, RC's requester, or a UD datagram sent at once. Runs on
 * the posting thread's cycle (the transport's thread), allocates nothing.
 */
final class SendPosting {
    private final TransportDevice t;
    private final CycleClock clock;
    private final ContextTable contexts;
    private final RcConnections rc;
    private final SrdCounters counters;
    private final SendRequests requests;
    private final SrdRequester messages;
    private final UdDatagrams datagrams;
    private final AddressHandles addressHandles;

    SendPosting(TransportDevice t, SendRequests requests, SrdRequester messages, UdDatagrams datagrams, AddressHandles addressHandles,
                RcConnections rc, CycleClock clock) {
        this.t = t;
        this.clock = clock;
        this.contexts = t.contextTable();
        this.rc = rc;
        this.counters = t.port.counters;
        this.requests = requests;
        this.messages = messages;
        this.datagrams = datagrams;
        this.addressHandles = addressHandles;
    }

    /**
     * Posts a work request of {@code opcode} ({@link SendOpcode}): a send of, an RDMA WRITE from or
     * an RDMA READ into {@code length} bytes at {@code offset} in {@code buffer}, to QP
     * {@code destQpn} behind address handle {@code ah}; RDMA names the remote memory by
     * {@code remoteAddress} and {@code rkey}. Returns POST_OK or a negative POST_* code (nothing
     * posted). Errors found after posting complete the request with their status, as verbs does:
     * a SEND over the MTU or an RDMA request over {@link TransportDevice#maxRdmaSize()} is LOCAL_LENGTH_ERROR, a
     * buffer out of bounds LOCAL_PROTECTION_ERROR, an opcode the QP type cannot carry (RDMA on UD)
     * LOCAL_QP_OPERATION_ERROR, as is an atomic opcode (atomics go through {@link #postAtomic}, which carries their operands).
     */
    int postSend(DeviceQp qp, WorkRequest wr, long now) {
        int ah = wr.ah;
        long wrId = wr.wrId;
        int opcode = wr.opcode;
        MemorySegment buffer = wr.buffer;
        long offset = wr.offset;
        int length = wr.length;
        boolean signaled = wr.signaled;
        if (qp.destroyed || !qp.acceptsSends()) {
            return notSending(qp, wr, buffer, offset, length);
        }
        if (qp.type == QpType.RC) {
            return postConnected(qp, 0, wr, buffer, offset, null);
        }
        if (qp.type == QpType.SRC) {
            return TransportDevice.POST_INVALID; // its sends name the remote SRQ: postSrc
        }
        if (!addressHandles.isLive(ah)) {
            return TransportDevice.POST_BAD_ADDRESS_HANDLE;
        }
        if (qp.sqOutstanding >= qp.sqDepth) {
            return TransportDevice.POST_SQ_FULL;
        }
        boolean rdma = SendOpcode.isRdma(opcode);
        // Atomics never reach SRD or UD (see postAtomic); here they would also lack their operands.
        boolean refused = (rdma && qp.type == QpType.UD) || SendOpcode.isAtomic(opcode);
        if (refusedAtPosting(qp, wrId, opcode, refused, rdma ? RdmaHeader.MAX_DMA_LENGTH : t.mtu(), buffer, offset, length, signaled)) {
            return TransportDevice.POST_OK;
        }
        if (qp.type == QpType.UD) {
            datagrams.send(qp, ah, wr.destQpn, wr.qkey, wrId, buffer, offset, length, opcode == SendOpcode.SEND_WITH_IMM,
                    wr.immediate, signaled, now);
            return TransportDevice.POST_OK;
        }
        SrdContext ctx = contexts.openFor(FlowKey.pack(addressHandles.ip(ah), addressHandles.port(ah)), addressHandles.mac(ah), now);
        if (ctx == null) {
            return TransportDevice.POST_NO_RESOURCES;
        }
        ctx.remoteMac = addressHandles.mac(ah); // the handle, not a received frame, says where the peer is
        ctx.established = true;
        ctx.ensureRequester();
        int r = requests.take();
        if (r < 0) {
            counters.requestTableFull++;
            return TransportDevice.POST_NO_RESOURCES;
        }
        requests.opcode[r] = opcode;
        requests.wrId[r] = wrId;
        requests.qp[r] = qp;
        requests.addressHandle[r] = ah;
        requests.context[r] = ctx.index;
        requests.destQpn[r] = wr.destQpn;
        requests.qkey[r] = wr.qkey;
        requests.buffer[r] = buffer;
        requests.offset[r] = offset;
        requests.length[r] = length;
        requests.immediate[r] = wr.immediate;
        requests.remoteAddress[r] = wr.remoteAddress;
        requests.rkey[r] = wr.rkey;
        requests.signaled[r] = signaled;
        requests.rnrLeft[r] = qp.rnrRetry;
        qp.sqOutstanding++;
        messages.queue(ctx, r);
        clock.markPosted();
        return TransportDevice.POST_OK;
    }

    /**
     * The errors a post is checked for before anything is queued: an opcode the QP cannot carry, a
     * length over {@code maxLength}, a buffer range outside the buffer, a read-only buffer for a
     * READ's or an atomic's response. One found completes the
     * request with its status at once, as verbs does; returns whether one was.
     */
    private boolean refusedAtPosting(DeviceQp qp, long wrId, int opcode, boolean opcodeRefused, int maxLength, MemorySegment buffer,
                                     long offset, int length, boolean signaled) {
        int refused = !SendOpcode.isValid(opcode) || opcodeRefused ? WcStatus.LOCAL_QP_OPERATION_ERROR
            : length < 0 || length > maxLength ? WcStatus.LOCAL_LENGTH_ERROR
            : offset < 0 || offset + length > buffer.byteSize() ? WcStatus.LOCAL_PROTECTION_ERROR
            : SendOpcode.awaitsResponse(opcode) && buffer.isReadOnly() ? WcStatus.LOCAL_PROTECTION_ERROR // the response lands there
            : -1;
        return refused >= 0 && refuse(qp, wrId, opcode, buffer, offset, length, signaled, refused);
    }

    /** {@link #refusedAtPosting}'s checks for a gathered SEND or WRITE (see {@link #postGather}). */
    private boolean refusedGather(DeviceQp qp, long wrId, int opcode, GatherList sges, int length, boolean signaled) {
        boolean gathers = opcode == SendOpcode.SEND || opcode == SendOpcode.SEND_WITH_IMM || opcode == SendOpcode.RDMA_WRITE
            || opcode == SendOpcode.RDMA_WRITE_WITH_IMM;
        int refused = !gathers ? WcStatus.LOCAL_QP_OPERATION_ERROR
            : length < 0 || length > RdmaHeader.MAX_DMA_LENGTH || sges.totalLength() != length ? WcStatus.LOCAL_LENGTH_ERROR
            : !sges.inBounds() ? WcStatus.LOCAL_PROTECTION_ERROR
            : -1;
        return refused >= 0 && refuse(qp, wrId, opcode, sges.segment(0), sges.offset(0), length, signaled, refused);
    }

    /**
     * A post to a QP that does not send now: in ERROR it is taken and completes WR_FLUSH_ERROR at once
     * (always reported, signaled or not), as verbs flushes what is posted to a QP in ERROR — every
     * request posted before it has completed already, so this keeps post order; the send queue's depth
     * still bounds it. Any other state (before RTS, SQD), or a destroyed QP: POST_BAD_QP_STATE, nothing posted.
     */
    private int notSending(DeviceQp qp, WorkRequest wr, MemorySegment buffer, long offset, int length) {
        if (qp.destroyed || qp.state != QpState.ERROR) {
            return TransportDevice.POST_BAD_QP_STATE;
        }
        if (qp.sqOutstanding >= qp.sqDepth) {
            return TransportDevice.POST_SQ_FULL;
        }
        qp.sqOutstanding++;
        counters.sendCompletions[WcStatus.WR_FLUSH_ERROR]++;
        qp.completeSend(wr.wrId, SendOpcode.completionOpcode(wr.opcode), WcStatus.WR_FLUSH_ERROR, length, wr.signaled);
        qp.released(buffer, offset);
        return TransportDevice.POST_OK;
    }

    /** Completes a request refused at posting with {@code refused}: on RC in post order (then ERROR), else at once. Returns true. */
    private boolean refuse(DeviceQp qp, long wrId, int opcode, MemorySegment buffer, long offset, int length, boolean signaled,
            int refused) {
        qp.sqOutstanding++;
        if (qp.type.connected() && !qp.rcRequester.isFull()) {
            qp.rcRequester.postRefused(wrId, opcode, buffer, offset, length, refused, true); // in post order, then ERROR
            return true;
        }
        counters.sendCompletions[refused]++;
        qp.completeSend(wrId, SendOpcode.completionOpcode(opcode), refused, length, signaled);
        qp.released(buffer, offset);
        return true;
    }

    /**
     * RC: the QP's connection says where the request goes. A message of any opcode may be up to
     * {@link TransportDevice#maxRdmaSize()} (RC segments SENDs too); errors found at posting complete it as for SRD.
     */
    private int postConnected(DeviceQp qp, int remoteSrqn, WorkRequest wr, MemorySegment buffer, long offset, GatherList gather) {
        long wrId = wr.wrId;
        int opcode = wr.opcode;
        int length = wr.length;
        boolean signaled = wr.signaled;
        if (qp.sqOutstanding >= qp.sqDepth || qp.rcRequester.isFull()) {
            return TransportDevice.POST_SQ_FULL;
        }
        // TransportDevice.post hands every atomic to postAtomic: one that got here would have no operands.
        boolean refused = gather == null
            ? refusedAtPosting(qp, wrId, opcode, SendOpcode.isAtomic(opcode), RdmaHeader.MAX_DMA_LENGTH, buffer, offset, length, signaled)
            : refusedGather(qp, wrId, opcode, gather, length, signaled);
        if (refused) {
            return TransportDevice.POST_OK;
        }
        qp.sqOutstanding++;
        qp.rcRequester.post(wr, remoteSrqn);
        return queuedOnRc(qp);
    }

    /** An RC QP's requester has a new request: it is visited from the next cycle on. */
    private int queuedOnRc(DeviceQp qp) {
        rc.activate(qp.rcRequester);
        clock.markPosted();
        return TransportDevice.POST_OK;
    }

    /**
     * Posts an atomic ({@link SendOpcode#ATOMIC_CMP_SWAP} or {@link SendOpcode#ATOMIC_FETCH_ADD}) on the
     * 64-bit word at {@code remoteAddress} in the peer's region {@code rkey}: CMP_SWAP writes
     * {@code swap} there if the word equals {@code compareOrAdd}, FETCH_ADD adds {@code compareOrAdd}
     * to it (ibv_send_wr.wr.atomic's compare_add and swap). It runs exactly once at the responder,
     * and the word's original value lands in the 8 bytes at {@code offset} in {@code buffer}, in host
     * byte order, before the request completes (COMP_SWAP or FETCH_ADD). Returns TransportDevice.POST_OK or a
     * negative POST_* code (nothing posted): TransportDevice.POST_INVALID for a remote address not 8-byte aligned,
     * as rxe refuses it at posting.
     * <p>
     * RC only: SRD delivers in any order and keeps no answer per request, so an atomic there could
     * not be made to run once in order with the QP's other requests; SRD and UD QPs complete one
     * with LOCAL_QP_OPERATION_ERROR, as they do an opcode they cannot carry. A buffer without 8
     * bytes at {@code offset} completes with LOCAL_PROTECTION_ERROR. The responder refuses what its
     * QP's or the region's access flags (REMOTE_ATOMIC) do not allow, or a word outside the region,
     * with REMOTE_ACCESS_ERROR, a misaligned word with REMOTE_INVALID_REQUEST_ERROR.
     */
    int postAtomic(DeviceQp qp, WorkRequest wr) {
        if (qp.type == QpType.SRC) {
            return TransportDevice.POST_INVALID; // its atomics name the remote SRQ: postSrcAtomic
        }
        return atomic(qp, 0, wr);
    }

    /** SRC: a work request for the responder's SRQ numbered {@code remoteSrqn}, posted as on RC. */
    int postSrc(DeviceQp qp, WorkRequest wr) {
        int remoteSrqn = wr.remoteSrqn;
        if (qp.type != QpType.SRC || !isSrqNumber(remoteSrqn)) {
            return TransportDevice.POST_INVALID;
        }
        if (qp.destroyed || !qp.acceptsSends()) {
            return notSending(qp, wr, wr.buffer, wr.offset, wr.length);
        }
        return postConnected(qp, remoteSrqn, wr, wr.buffer, wr.offset, null);
    }

    /**
     * RC and SRC (rule 5 of issue 25): a SEND or WRITE gathered from the SGEs of {@code sges}, the
     * same message as one SGE of the same {@code length} bytes, up to {@link TransportDevice#maxRdmaSize()}.
     * {@code remoteSrqn}: SRC's remote SRQ, 0 on RC. Errors found after posting complete it as for
     * one buffer: an opcode that cannot gather (READ scatters, atomics take one word)
     * LOCAL_QP_OPERATION_ERROR, a length not the entries' sum or over the maximum LOCAL_LENGTH_ERROR,
     * an entry outside its segment LOCAL_PROTECTION_ERROR. The entries are copied into the request.
     */
    int postGather(DeviceQp qp, int remoteSrqn, WorkRequest wr) {
        GatherList sges = wr.sges;
        if (!qp.type.connected() || (qp.type == QpType.SRC) != isSrqNumber(remoteSrqn) || sges.count() == 0) {
            return TransportDevice.POST_INVALID;
        }
        MemorySegment first = sges.segment(0);
        if (qp.destroyed || !qp.acceptsSends()) {
            return notSending(qp, wr, first, sges.offset(0), wr.length);
        }
        return postConnected(qp, remoteSrqn, wr, first, sges.offset(0), sges);
    }

    /** SRC: an atomic as on RC, checked at the responder against the protection domain of its SRQ {@code remoteSrqn}. */
    int postSrcAtomic(DeviceQp qp, WorkRequest wr) {
        if (qp.type != QpType.SRC || !isSrqNumber(wr.remoteSrqn)) {
            return TransportDevice.POST_INVALID;
        }
        return atomic(qp, wr.remoteSrqn, wr);
    }

    private static boolean isSrqNumber(int n) {
        return n > 0 && n <= 0xFF_FFFF;
    }

    private int atomic(DeviceQp qp, int remoteSrqn, WorkRequest wr) {
        int opcode = wr.opcode;
        if (qp.destroyed || !qp.acceptsSends()) {
            return notSending(qp, wr, wr.buffer, wr.offset, SendOpcode.ATOMIC_SIZE);
        }
        boolean connected = qp.type.connected();
        if (qp.sqOutstanding >= qp.sqDepth || (connected && qp.rcRequester.isFull())) {
            return TransportDevice.POST_SQ_FULL;
        }
        if (connected && SendOpcode.isAtomic(opcode) && (wr.remoteAddress & (SendOpcode.ATOMIC_SIZE - 1)) != 0) {
            return TransportDevice.POST_INVALID;
        }
        if (refusedAtPosting(qp, wr.wrId, opcode, !connected || !SendOpcode.isAtomic(opcode), SendOpcode.ATOMIC_SIZE, wr.buffer,
            wr.offset, SendOpcode.ATOMIC_SIZE, wr.signaled)) {
            return TransportDevice.POST_OK;
        }
        qp.sqOutstanding++;
        qp.rcRequester.postAtomic(wr, remoteSrqn);
        return queuedOnRc(qp);
    }
}
