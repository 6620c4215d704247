package io.srdnic.srd.transport.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.transport.port.WorkRequest;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * RC shares SRD's engine and its undo: a requester whose ACKs were only late learns that its
 * retransmissions were spurious, from the late ACKs' echo of the originals or from the responder's
 * duplicate reports (RC's ACK carries {@code FLAG_DUPLICATE} too, one report an ACK), and gives
 * back what the timeout took.
 */
class RcSpuriousRetransmissionTest {
    static final long MS = 1_000_000;

    /** Warms the connection up (the RTT known), then posts four SENDs with B's ACKs treated as {@code mode} says. */
    private static void fourSendsWithTheAcksTreated(RcPair p, FrameGate gateB, FrameGate.Mode mode) {
        p.receives(64, 256);
        MemorySegment msg = p.random(256, 3);
        WorkRequest wr = new WorkRequest();
        for (int round = 0; round < 8; round++) {
            if (round == 7) {
                gateB.applies = mode == FrameGate.Mode.HOLD ? FrameGate.ACKS : FrameGate.ACKS_WITHOUT_DUPLICATE_REPORT;
                gateB.mode = mode;
            }
            int n = round < 7 ? 8 : 4;
            for (int i = 0; i < n; i++) {
                wr.clear();
                wr.wrId = round * 8 + i;
                wr.opcode = SendOpcode.SEND;
                wr.buffer = msg;
                wr.length = 256;
                wr.signaled = true;
                assertEquals(TransportDevice.POST_OK, p.a.post(p.qa.qp(), wr));
            }
            if (round < 7) {
                assertEquals(n, p.sendCompletions(n, 10 * MS).size());
            }
        }
        int copies = mode == FrameGate.Mode.HOLD ? 4 : 1; // a reported copy's ACK covers the originals: no more need go
        assertTrue(p.f.runUntil(() -> p.a.counters.rtoEvents > 0 && p.b.counters.duplicates >= copies, 10 * MS));
    }

    @Test
    void shouldUndoTheTimeoutWhenTheLateAcksEchoTheOriginals() {
        FrameGate[] gateB = new FrameGate[1];
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 61, io -> io, io -> gateB[0] = new FrameGate(io)).connect()) {
            fourSendsWithTheAcksTreated(p, gateB[0], FrameGate.Mode.HOLD); // B's ACKs are late, not lost
            gateB[0].release();
            assertEquals(4, p.sendCompletions(4, 10 * MS).size());
            p.f.runFor(MS);

            assertTrue(p.a.counters.txRetransmits >= 4);
            assertEquals(p.a.counters.txRetransmits, p.a.counters.spuriousRetransmits, "every copy found out");
            assertEquals(1, p.a.counters.undos);
        }
    }

    @Test
    void shouldUndoTheTimeoutWhenTheResponderReportsEveryCopyAsADuplicate() {
        FrameGate[] gateB = new FrameGate[1];
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 62, io -> io, io -> gateB[0] = new FrameGate(io)).connect()) {
            fourSendsWithTheAcksTreated(p, gateB[0], FrameGate.Mode.DROP); // only ACKs that report a duplicate get through
            assertEquals(4, p.sendCompletions(4, 10 * MS).size());
            p.f.runFor(MS);

            assertTrue(gateB[0].dropped > 0, "the originals' ACKs were lost");
            assertTrue(p.a.counters.txRetransmits >= 1);
            assertEquals(p.b.counters.duplicates, p.a.counters.txRetransmits);
            assertEquals(p.a.counters.txRetransmits, p.a.counters.spuriousRetransmits, "each copy reported, one an ACK");
            assertEquals(1, p.a.counters.undos);
        }
    }
}
