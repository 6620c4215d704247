package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 25, rule 3: a packet ahead of the expected PSN gets a sequence NAK, once per episode (rxe's
 * {@code sent_psn_nak}), and the requester goes back to the PSN it names (rxe_comp.c's
 * AETH_NAK_PSN_SEQ_ERROR): one lost packet in the middle of a burst is repaired in one round trip,
 * not by a retransmission timeout. Each WRITE of the burst is one packet, all sent in one cycle, so
 * RACK (which needs a later packet sent a reorder window after the lost one) cannot see the loss.
 */
class RcSequenceNakTest {
    /** The requester's first PSN (RcPair's SQ PSN of host a). */
    private static final int FIRST_PSN = 5000;
    private static final int WRITES = 8;
    private static final int BYTES = 512;

    /** Which packet of the burst is lost: the fourth (RACK would find it too, later) or the seventh (only a timeout would). */
    @ParameterizedTest
    @ValueSource(ints = {3, 6})
    void shouldRepairALostMiddlePacketWithOneSequenceNakAndNoTimeout(int lost) {
        RcLostNakTest.DropFirst[] filter = new RcLostNakTest.DropFirst[1];
        UnaryOperator<PacketIo> losesOne = io -> filter[0] = new RcLostNakTest.DropFirst(io, FIRST_PSN + lost);
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 25, io -> io, losesOne).connect()) {
            MemorySegment remote = p.f.arena.allocate(WRITES * BYTES, 64);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_WRITE);
            MemorySegment tx = p.random(WRITES * BYTES, 25);
            for (int i = 0; i < WRITES; i++) {
                assertEquals(TransportDevice.POST_OK,
                    p.post(SendOpcode.RDMA_WRITE, i + 1, tx, (long) i * BYTES, BYTES, remote.address() + (long) i * BYTES, rkey, 0));
            }
            List<TestQp.Wc> wcs = p.sendCompletions(WRITES, 200 * MS);
            assertTrue(filter[0].dropped, "one WRITE's first copy was lost");
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L), wcs.stream().map(TestQp.Wc::wrId).toList(), "post order");
            assertTrue(wcs.stream().allMatch(w -> w.status() == WcStatus.SUCCESS), wcs.toString());
            assertEquals(-1, tx.mismatch(remote), "every WRITE landed");
            Map<String, Long> sent = p.b.counters().snapshot();
            Map<String, Long> got = p.a.counters().snapshot();
            assertEquals(1L, sent.get("drops_sent_psn_sequence"), "one sequence NAK for the gap, however many came after it: " + sent);
            assertEquals(1L, got.get("drops_received_psn_sequence"), got.toString());
            assertEquals(0L, got.get("rto_events"), "no retransmission timeout: the NAK repaired the gap");
            assertEquals(1L, got.get("tx_retransmits"), "only the lost packet went again (the later ones were held and acknowledged)");
            assertEquals(0L, got.get("drops_received_rnr"), "never an RNR NAK");
        }
    }
}
