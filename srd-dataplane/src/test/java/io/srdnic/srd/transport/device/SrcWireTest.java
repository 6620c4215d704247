package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SRC on the wire (docs/wire-format.md, "SRC on this wire"): every packet of an SRC request names
 * the responder's SRQ (FLAG_SRC, the SRQ number in the destination context id field), segmented as
 * RC segments; the responder's READ answers and ACKs are RC's, unmarked.
 */
class SrcWireTest {

    /** The SRD header fields of one frame sent: type, flags, destination context id. */
    record Sent(int type, int flags, int destinationContext) {
    }

    private static final class Recorder extends ForwardingPacketIo {
        final List<Sent> sent = new ArrayList<>();

        Recorder(PacketIo inner) {
            super(inner);
        }

        @Override
        public int transmit(MbufBatch batch) {
            for (int i = 0; i < batch.count(); i++) {
                var m = batch.get(i);
                int at = FrameLayout.SRD_OFFSET;
                int dst = ((m.getByte(at + 8) & 0xFF) << 24) | ((m.getByte(at + 9) & 0xFF) << 16) | ((m.getByte(at + 10) & 0xFF) << 8)
                    | (m.getByte(at + 11) & 0xFF);
                sent.add(new Sent(m.getByte(at) & 0x0F, m.getByte(at + 1) & 0xFF, dst));
            }
            return inner.transmit(batch);
        }
    }

    @Test
    void shouldAddOnlyTheSrqNumberToEveryPacketOfAnRcRequest() {
        Recorder[] rec = new Recorder[2];
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 71, 2, io -> rec[0] = new Recorder(io),
                io -> rec[1] = new Recorder(io)).connect()) {
            p.receives(1, 1, 10_000);
            MemorySegment tx = p.random(1, 10_000, 71);
            MemorySegment remote = p.f.arena.allocate(10_000, 64);
            int rkey = p.b.regions().register(remote, 1, MemoryRegions.REMOTE_WRITE | MemoryRegions.REMOTE_READ);
            MemorySegment back = p.f.arena.allocate(10_000, 64);
            int srq0 = SrcPair.SRQN;
            int srq1 = SrcPair.SRQN + 1;
            assertEquals(TransportDevice.POST_OK, p.post(srq1, SendOpcode.SEND, 1, tx, 0, 10_000, 0, 0, 0));
            assertEquals(TransportDevice.POST_OK, p.post(srq0, SendOpcode.RDMA_WRITE, 2, tx, 0, 10_000, remote.address(), rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.post(srq0, SendOpcode.RDMA_READ, 3, back, 0, 10_000, remote.address(), rkey, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(3, 100 * MS);
            assertTrue(wcs.stream().allMatch(w -> w.status() == WcStatus.SUCCESS), wcs.toString());
            int sends = 0;
            int writes = 0;
            for (Sent s : rec[0].sent) {
                if (s.type() == PacketType.ACK) {
                    assertEquals(0, s.flags() & SrdHeader.FLAG_SRC, "an ACK names no SRQ");
                    continue;
                }
                assertEquals(SrdHeader.FLAG_RC | SrdHeader.FLAG_SRC, s.flags() & (SrdHeader.FLAG_RC | SrdHeader.FLAG_SRC), s.toString());
                if (s.type() == PacketType.SEND) {
                    sends++;
                    assertEquals(srq1, s.destinationContext(), "every SEND packet names SRQ 1");
                } else {
                    writes += s.type() == PacketType.RDMA_WRITE ? 1 : 0;
                    assertEquals(srq0, s.destinationContext(), "every WRITE and READ packet names SRQ 0");
                }
            }
            assertEquals(10, sends, "10 000 bytes at path MTU 1024: RC's segmentation");
            assertEquals(10, writes, "10 000 bytes at 1024 - 24 per WRITE packet");
            int answers = 0;
            for (Sent s : rec[1].sent) {
                assertEquals(0, s.flags() & SrdHeader.FLAG_SRC, "the responder's packets are RC's: " + s);
                if (s.type() == PacketType.READ_RESPONSE) {
                    answers++;
                    assertEquals(0, s.destinationContext());
                }
            }
            assertTrue(answers >= 10, "the READ was answered in RC's READ_RESPONSE packets");
        }
    }
}
