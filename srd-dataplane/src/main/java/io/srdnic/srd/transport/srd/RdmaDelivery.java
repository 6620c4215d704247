package io.srdnic.srd.transport.srd;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.QpTable;
import io.srdnic.srd.transport.port.RdmaLanding;
import io.srdnic.srd.transport.port.TransportPort;
import io.srdnic.srd.transport.qp.TransportQp;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;

/**
 * The responder's policy for RDMA requests on SRD, after the transport checks: the QP checks a
 * SEND gets (the QP exists, can receive, the Q_Key), then memory protection — the rkey names a
 * region of the QP's protection domain that grants the access and holds every byte the packet
 * touches — and only then the memory is touched. A WRITE segment lands at its address; the last
 * segment of a WRITE with immediate also consumes a receive, which completes with the immediate and
 * the write's length; a READ is answered from this context's own sending half. A refused request
 * changes nothing in memory and is answered with a drop indication.
 */
final class RdmaDelivery {
    /** Neither delivered nor refused: nothing was taken, so the packet stays unacknowledged and comes again. */
    static final int LATER = -1;

    private final QpTable<? extends TransportQp> qps;
    private final SrdCounters counters;
    private final MemoryRegions regions;
    private final SrdRequester messages;

    RdmaDelivery(TransportPort port, SrdRequester messages) {
        this.qps = port.qps;
        this.counters = port.counters;
        this.regions = port.regions;
        this.messages = messages;
    }

    /** Checks and executes an RDMA request of {@code type} from {@code ctx}; 0, a DropReason, or {@link #LATER}. */
    int execute(Mbuf m, int type, SrdContext ctx) {
        TransportQp qp = qps.get(SrdHeader.destinationQpn(m));
        if (qp == null || qp.type != QpType.SRD || !qp.state.canReceive()) {
            return DropReason.BAD_DEST_QP;
        }
        if (SrdHeader.qkey(m) != qp.qkey) {
            return DropReason.REMOTE_INVALID_REQUEST;
        }
        if (!RdmaHeader.isConsistent(m, type == PacketType.RDMA_READ, RdmaHeader.MAX_DMA_LENGTH)) {
            return DropReason.REMOTE_INVALID_REQUEST;
        }
        int data = SrdHeader.payloadLength(m) - RdmaHeader.LENGTH;
        int length = RdmaHeader.dmaLength(m);
        int at = RdmaHeader.segmentOffset(m);
        boolean read = type == PacketType.RDMA_READ;
        long address = RdmaHeader.address(m);
        int rkey = RdmaHeader.rkey(m);
        // The whole request's range, not just this packet's: a request straying outside its region changes nothing.
        int region = regions.find(rkey, qp.pd, address, length, read ? MemoryRegions.REMOTE_READ : MemoryRegions.REMOTE_WRITE);
        if (region < 0) {
            return DropReason.REMOTE_ACCESS;
        }
        MemorySegment memory = regions.segment(region);
        long offset = regions.offset(region, address);
        if (read) {
            return messages.answerRead(ctx, qp, SrdHeader.sourceQpn(m), SrdHeader.immediate(m), rkey, memory, offset, length) ? 0 : LATER;
        }
        boolean withImmediate = type == PacketType.RDMA_WRITE_WITH_IMM;
        if (withImmediate) {
            if (qp.lacksReceive()) {
                return DropReason.RNR;
            }
            if (qp.receiveCompletionWouldOverrun()) {
                return DropReason.BAD_DEST_QP; // the QP is in ERROR now, its application told why
            }
        }
        return RdmaLanding.land(counters, qp, m, memory, offset + at, data, withImmediate, length, ctx.remoteIp);
    }
}
