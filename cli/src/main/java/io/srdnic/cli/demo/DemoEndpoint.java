package io.srdnic.cli.demo;

import io.srdnic.pmd.fault.FaultInjectingPacketIo;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.Arena;

/** One side of the demo: a context, an SRD QP with receives posted, and the verbs objects it reuses. */
final class DemoEndpoint implements AutoCloseable {
    static final int QKEY = 0x5244;
    static final int RECEIVES = 1024;
    static final int SLOT = 4096;

    final Context context;
    final FaultInjectingPacketIo faults;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final MemoryRegion mr;
    final WorkCompletion[] wcs = CompletionQueue.array(64);
    final SendWr send = new SendWr();
    final RecvWr recv = new RecvWr();
    AddressHandle peer;
    int peerQpn;

    DemoEndpoint(Context context, FaultInjectingPacketIo faults, Arena arena) {
        this.context = context;
        this.faults = faults;
        this.pd = context.allocPd();
        this.cq = context.createCq(8192);
        this.qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(4096).maxRecvWr(RECEIVES).build());
        this.mr = pd.registerMemory(arena.allocate((long) (RECEIVES + 1) * SLOT, 4096), Access.LOCAL_WRITE);
        qp.modify(QpState.INIT, QKEY);
        for (int i = 0; i < RECEIVES; i++) {
            repost(i);
        }
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
    }

    void connect(DemoEndpoint other) {
        peer = pd.createAddressHandle(other.context.mac(), other.context.ip(), other.context.udpPort());
        peerQpn = other.qp.qpNum();
    }

    /** Receive slot i is bytes [(i+1)*SLOT, (i+2)*SLOT) of the region; slot 0 is the send buffer. */
    void repost(long slot) {
        recv.wrId(slot).sge().set(mr, (slot + 1) * SLOT, SLOT);
        if (qp.postRecv(recv) != 0) {
            throw new IllegalStateException("receive queue full");
        }
    }

    /** Posts a send of {@code size} bytes from slot 0 with {@code imm}; false if the send queue is full. */
    boolean send(long wrId, int size, int imm) {
        send.wrId(wrId).opcode(SendWr.OP_SEND_WITH_IMM).immediate(imm).flags(SendWr.SIGNALED)
            .destination(peer, peerQpn, QKEY).numSge(1);
        send.sge(0).set(mr, 0, size);
        return qp.postSend(send) == 0;
    }

    @Override
    public void close() {
        context.close();
    }
}
