package io.srdnic.rtrs.link;

import io.srdnic.rtrs.protocol.Rtrs;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.cm.CmId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The verbs resources of one path on its context, made once and kept across reconnects (a CQ
 * cannot be destroyed; a server keeps those of closed paths for the next ones): a PD, one CQ for all the path's QPs, receive slots, and a
 * buffer for the
 * control messages (INFO_REQ/INFO_RSP). The service connection's receives are slots of
 * {@link #SLOT} bytes (work request id: the slot's number); an IO connection only ever receives
 * immediates, so its receives are dataless ({@link #DATALESS}). Empty RTRS messages (heartbeats, IO responses without data)
 * go as zero-byte SEND_WITH_IMM: see docs/rtrs-conformance.md.
 */
public final class PathVerbs {
    /** A receive slot: room for INFO_REQ (272 bytes) and an INFO_RSP of 31 descs. */
    public static final int SLOT = 512;
    public static final int CONTROL = 4096;
    /** The work request id of an IO connection's receives: they take no bytes, only an immediate. */
    public static final long DATALESS = -1;

    public final Context context;
    public final ProtectionDomain pd;
    public final CompletionQueue cq;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment receives;
    private final MemoryRegion receiveRegion;
    private final MemorySegment control;
    private final MemoryRegion controlRegion;
    private final int slots;
    private final RecvWr recv = new RecvWr();
    private final SendWr send = new SendWr();
    private final WorkCompletion[] drained = CompletionQueue.array(64);

    public PathVerbs(Context context) {
        this.context = context;
        this.slots = Rtrs.SERVICE_QUEUE_DEPTH;
        this.pd = context.allocPd();
        this.cq = context.createCq(1 << 16);
        this.receives = arena.allocate((long) slots * SLOT, 64);
        this.receiveRegion = pd.registerMemory(receives, Access.LOCAL_WRITE);
        this.control = arena.allocate(CONTROL, 64);
        this.controlRegion = pd.registerMemory(control, Access.LOCAL_WRITE);
    }

    /** The service connection's RC QP, every receive slot posted; made before connect or accept. */
    public QueuePair createServiceQp(CmId id, int sendDepth) {
        QueuePair qp = id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(sendDepth).maxRecvWr(slots).build());
        for (int i = 0; i < slots; i++) {
            repost(qp, i);
        }
        return qp;
    }

    /** An IO connection's RC QP with {@code receives} dataless receives posted. */
    public QueuePair createIoQp(CmId id, int sendDepth, int receives) {
        QueuePair qp = id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(sendDepth).maxRecvWr(receives).build());
        for (int i = 0; i < receives; i++) {
            repost(qp, DATALESS);
        }
        return qp;
    }

    /** Posts the receive {@code wrId} names (a slot, or a dataless one) on {@code qp} again: its completion was handled. */
    public void repost(QueuePair qp, long wrId) {
        if (wrId == DATALESS) {
            recv.wrId(DATALESS).sge().set(receiveRegion, 0, 0);
        } else {
            recv.wrId(wrId).sge().set(receiveRegion, wrId * SLOT, SLOT);
        }
        qp.postRecv(recv);
    }

    public MemorySegment receives() {
        return receives;
    }

    /** Where slot {@code slot}'s bytes start in {@link #receives()}. */
    public static long slotOffset(long slot) {
        return slot * SLOT;
    }

    /** The control buffer: write a message here, then {@link #sendControl}. */
    public MemorySegment control() {
        return control;
    }

    public int sendControl(QueuePair qp, int length, long wrId) {
        send.numSge(1).opcode(SendWr.OP_SEND).flags(0).wrId(wrId).sge(0).set(controlRegion, 0, length);
        return qp.postSend(send);
    }

    /** An empty message carrying only {@code imm} (zero-byte SEND_WITH_IMM), unsignaled. */
    public int sendEmpty(QueuePair qp, int imm, long wrId) {
        send.numSge(0).opcode(SendWr.OP_SEND_WITH_IMM).flags(0).immediate(imm).wrId(wrId);
        return qp.postSend(send);
    }

    /** RDMA WRITE WITH IMM of {@code length} bytes of {@code region} at {@code offset} to the peer's {@code address}/{@code rkey}. */
    public int writeWithImm(QueuePair qp, MemoryRegion region, long offset, int length, long address, int rkey, int imm, long wrId,
                            boolean signaled) {
        send.numSge(1).opcode(SendWr.OP_RDMA_WRITE_WITH_IMM).flags(signaled ? SendWr.SIGNALED : 0).immediate(imm).wrId(wrId)
            .rdma(address, rkey).sge(0).set(region, offset, length);
        return qp.postSend(send);
    }

    /**
     * Discards what the CQ still holds, once the path's QPs are destroyed (no completion comes from
     * them after): the next incarnation's QPs may draw the same numbers and must not see their
     * predecessors' completions.
     */
    public void drain() {
        while (cq.poll(drained) > 0) {
            // discarded
        }
    }

    /** Lets the memory go (its QPs destroyed first); the CQ stays with the context, which cannot destroy one. */
    public void close() {
        receiveRegion.deregister();
        controlRegion.deregister();
        arena.close();
    }

    /** Registers {@code memory} on this path's PD for the peer to RDMA-WRITE into (and to send from). */
    public MemoryRegion registerRemoteWritable(MemorySegment memory) {
        return pd.registerMemory(memory, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    }
}
