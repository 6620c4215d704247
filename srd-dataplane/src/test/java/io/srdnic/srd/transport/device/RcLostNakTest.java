package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, rule 2 under loss: a fatal NAK does not erase what was executed before it, even when
 * the ACK carrying it is lost. The refused request (and those after it) may have been acknowledged
 * selectively while held, so the requester's engine holds nothing of them in flight; as in
 * InfiniBand, the requester keeps asking while a work request is not completed, and the responder
 * answers a repeated request, before or at the refused PSN, with the NAK again.
 */
class RcLostNakTest {
    /** The requester's first PSN (RcPair's SQ PSN of host a). */
    private static final int FIRST_PSN = 5000;

    @Test
    void shouldCompleteEveryRequestWhenTheFatalNakOfAHeldWriteIsLost() {
        DropFirst[] filters = new DropFirst[2];
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 41, io -> filters[0] = new DropFirst(io, -1),
            io -> filters[1] = new DropFirst(io, FIRST_PSN + 1)).connect()) {
            MemorySegment remote = p.f.arena.allocate(4096, 64);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_WRITE);
            MemorySegment tx = p.random(4096, 41);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 1, tx, 0, 64, remote.address(), rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 2, tx, 64, 64, remote.address() + 64, rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 3, tx, 128, 64, remote.address() + 128, rkey ^ 0x5a5a, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 4, tx, 192, 64, remote.address() + 192, rkey, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(4, 200 * MS);
            assertTrue(filters[0].dropped && filters[1].dropped, "the second WRITE's first copy and the first fatal NAK were lost");
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.REMOTE_ACCESS_ERROR, WcStatus.WR_FLUSH_ERROR),
                wcs.stream().map(TestQp.Wc::status).toList(), wcs.toString());
            assertEquals(List.of(1L, 2L, 3L, 4L), wcs.stream().map(TestQp.Wc::wrId).toList());
            assertEquals(QpState.ERROR, p.qa.qp().state());
        }
    }

    @Test
    void shouldCompleteEveryRequestWhenADeferredFatalNakIsLostAfterItsRequestWasHeld() {
        DropFirst[] filters = new DropFirst[2];
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 43, io -> filters[0] = new DropFirst(io, -1),
            io -> filters[1] = new DropFirst(io, FIRST_PSN)).connect()) {
            MemorySegment remote = p.random(4096, 430);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_WRITE | MemoryRegions.REMOTE_READ);
            MemorySegment local = p.f.arena.allocate(4096, 64);
            MemorySegment tx = p.random(4096, 43);
            // The READ's request is lost once: the bad WRITE and the good one after it are held and acknowledged
            // selectively; the WRITE's NAK waits for the READ's answer, then is lost.
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, 1, local, 0, 64, remote.address(), rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 2, tx, 0, 64, remote.address() + 64, rkey ^ 0x5a5a, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 3, tx, 64, 64, remote.address() + 128, rkey, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(3, 200 * MS);
            assertTrue(filters[0].dropped && filters[1].dropped, "the READ's first copy and the first fatal NAK were lost");
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.REMOTE_ACCESS_ERROR, WcStatus.WR_FLUSH_ERROR),
                wcs.stream().map(TestQp.Wc::status).toList(), wcs.toString());
            assertEquals(QpState.ERROR, p.qa.qp().state());
        }
    }

    /**
     * Drops, once, the first received frame that is an RC data packet of PSN {@code dataPsn}, or (when
     * {@code dataPsn} is -1) the first ACK that carries a fatal NAK.
     */
    static final class DropFirst extends ForwardingPacketIo {
        private final int dataPsn;
        private final MbufBatch trash = new MbufBatch(Arena.ofAuto(), 1);
        boolean dropped;

        DropFirst(PacketIo inner, int dataPsn) {
            super(inner);
            this.dataPsn = dataPsn;
        }

        @Override
        public int receive(MbufBatch batch) {
            int n = inner.receive(batch);
            for (int i = 0; i < n && !dropped; i++) {
                var m = batch.get(i);
                int type = m.getByte(FrameLayout.SRD_OFFSET) & 0x0F;
                boolean drop = dataPsn < 0 ? type == PacketType.ACK && fatalNak(m)
                    : PacketType.isData(type) && SrdHeader.psn(m) == dataPsn;
                if (drop) {
                    trash.count(0);
                    trash.add(batch.removeAt(i));
                    inner.free(trash);
                    dropped = true;
                    return batch.count();
                }
            }
            return n;
        }

        private static boolean fatalNak(Mbuf m) {
            for (int i = 0; i < SrdAck.dropCount(m); i++) {
                if (SrdAck.dropReason(m, i) != DropReason.RNR) {
                    return true;
                }
            }
            return false;
        }
    }
}
