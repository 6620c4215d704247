package io.srdnic.srd.transport.port;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.qp.TransportQp;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;

/**
 * Where an RDMA WRITE segment's bytes meet memory, after its QP type's checks: shared by SRD's and
 * RC's responders, so that both land and complete a WRITE with immediate the same way.
 */
public final class RdmaLanding {
    private RdmaLanding() {
    }

    /**
     * Lands a checked WRITE segment's {@code data} bytes at {@code at} in {@code memory} and, for a
     * WRITE with immediate, completes the receive it consumes (RC and SRD alike); 0, or
     * REMOTE_ACCESS if the region's memory was freed under it.
     */
    public static int land(SrdCounters counters, TransportQp qp, Mbuf m, MemorySegment memory, long at, int data, boolean withImmediate,
                           int length, int sourceIp) {
        try {
            m.copyTo(RdmaHeader.DATA_OFFSET, memory, at, data);
        } catch (IllegalStateException closedMemory) {
            return DropReason.REMOTE_ACCESS;
        }
        counters.rdmaWritesPlaced++;
        if (withImmediate) {
            qp.completeReceive(WcOpcode.RECV_RDMA_WITH_IMM, length, true, SrdHeader.immediate(m), SrdHeader.sourceQpn(m), sourceIp);
        }
        return 0;
    }
}
