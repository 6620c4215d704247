package io.srdnic.srd.transport.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.transport.srd.SrdContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Retransmissions that were not needed, on two simulated hosts: the requester must learn they
 * were spurious — from the late ACK of the original (its echoed timestamp is the original's) or
 * from the responder's duplicate report — and give back the window the timeout took; a packet
 * truly lost keeps its cut, and forged reports give back nothing that was not taken.
 */
class SpuriousRetransmissionTest {
    static final long US = 1_000;
    static final long MS = 1_000_000;

    private final GatedPair p = new GatedPair(LinkConfig.DEFAULT, 64);
    private final TransportDevice a = p.a;
    private final TransportDevice b = p.b;

    @AfterEach
    void close() {
        p.close();
    }

    @Test
    void shouldUndoTheTimeoutsCutWhenTheDelayedAckOfTheOriginalsArrives() {
        SrdContext ctx = p.warmUp();
        double before = ctx.sender.cwnd.window();
        p.gateB.applies = FrameGate.ACKS;
        p.gateB.mode = FrameGate.Mode.HOLD; // B's ACKs are delayed, not lost
        p.post(4, 64);
        assertTrue(p.f.runUntil(() -> a.counters.rtoEvents > 0 && b.counters.duplicates >= 4, 10 * MS), "the originals' ACKs are late");
        assertTrue(ctx.sender.cwnd.window() < before, "the timeout cut the window: " + ctx.sender.cwnd.window());

        p.gateB.release();
        assertTrue(p.f.runUntil(p::allCompleted, 10 * MS));
        p.f.runFor(MS);

        assertTrue(a.counters.txRetransmits >= 4);
        assertEquals(a.counters.txRetransmits, a.counters.spuriousRetransmits, "every retransmission shown spurious");
        assertEquals(1, a.counters.undos);
        assertTrue(ctx.sender.cwnd.window() >= before, "the window is back: " + ctx.sender.cwnd.window() + " < " + before);
        assertEquals(0, ctx.sender.rtt.backoff());
    }

    @Test
    void shouldUndoOnTheRespondersDuplicateReportsWhenTheOriginalsAcksAreLost() {
        SrdContext ctx = p.warmUp();
        double before = ctx.sender.cwnd.window();
        p.gateB.applies = FrameGate.ACKS_WITHOUT_DUPLICATE_REPORT;
        p.gateB.mode = FrameGate.Mode.DROP; // only the ACKs that report a duplicate get through
        p.post(4, 64);
        assertTrue(p.f.runUntil(p::allCompleted, 10 * MS));
        p.f.runFor(MS);

        assertTrue(p.gateB.dropped > 0, "the originals' ACKs were lost");
        // The first copy to reach B is reported; the ACK reporting it also covers the originals, so no more need go.
        assertTrue(a.counters.txRetransmits >= 1);
        assertEquals(a.counters.txRetransmits, a.counters.spuriousRetransmits, "each copy reported as a duplicate");
        assertEquals(a.counters.txRetransmits, b.counters.duplicates);
        assertEquals(1, a.counters.undos);
        assertTrue(ctx.sender.cwnd.window() >= before, "the window is back: " + ctx.sender.cwnd.window() + " < " + before);
    }

    @Test
    void shouldKeepTheCutWhenTheOriginalWasTrulyLost() {
        SrdContext ctx = p.warmUp();
        double before = ctx.sender.cwnd.window();
        p.gateA.applies = FrameGate.FIRST_COPIES_OF_DATA;
        p.gateA.mode = FrameGate.Mode.DROP; // the originals are lost; their retransmissions are not
        p.post(4, 64);
        assertTrue(p.f.runUntil(p::allCompleted, 10 * MS));
        p.f.runFor(MS);

        assertEquals(4, p.gateA.dropped);
        assertTrue(a.counters.txRetransmits >= 4);
        assertEquals(0, b.counters.duplicates, "no copy arrived twice");
        assertEquals(0, a.counters.spuriousRetransmits);
        assertEquals(0, a.counters.undos);
        assertTrue(ctx.sender.cwnd.window() < before, "the cut stands: " + ctx.sender.cwnd.window() + " vs " + before);
    }

    @Test
    void shouldGiveBackNoMoreThanTheFlowHadForForgedDuplicateReports() {
        SrdContext ctx = p.warmUp();
        SrdContext bSide = b.existingContext(SimFabric.flow(0));
        double before = ctx.sender.cwnd.window();
        p.gateA.applies = FrameGate.FIRST_COPIES_OF_DATA;
        p.gateA.mode = FrameGate.Mode.DROP;
        p.post(4, 64);
        assertTrue(p.f.runUntil(() -> a.counters.rtoEvents > 0, 10 * MS));
        int base = ctx.sender.sendBase;
        int next = ctx.sender.nextPsn;
        // An attacker who sees the headers reports duplicates: of PSNs never retransmitted, of ones
        // never sent (refused whole), and again and again of the ones retransmitted once.
        Attacker x = new Attacker(p.f);
        for (int psn = base - 60; psn != next + 3; psn++) {
            x.duplicateReport(0, SimFabric.ip(1), bSide.id, ctx.id, b.epoch(), base, a.epoch(), 0, psn);
        }
        p.f.runOnly(a, 10 * US);
        assertEquals(3, a.counters.acksRefused, "a duplicate of a PSN never sent names what was not sent");
        assertTrue(ctx.sender.cwnd.window() <= before + 1e-9, "no more than it had: " + ctx.sender.cwnd.window() + " > " + before);
        p.gateA.mode = FrameGate.Mode.PASS;
        assertTrue(p.f.runUntil(p::allCompleted, 10 * MS));
    }
}
