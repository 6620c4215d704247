package io.srdnic.srd.transport.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.transport.srd.SrdContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * F-RTO (RFC 5682) between two simulated SRD hosts: a responder that stalls with a flight of
 * packets delivered but unacknowledged makes the requester's RTO expire. Only the oldest packet
 * may go again (once per expiry while the stall lasts), not the whole flight; the ACKs after the
 * stall show packets that had timed out arriving without a copy, so the timeout is found
 * spurious and its window cut, backoff and avoided path are given back. Simulated time.
 */
class ForwardRtoStallTest {
    static final long MS = 1_000_000;

    private final GatedPair p = new GatedPair(LinkConfig.DEFAULT, 64);

    @AfterEach
    void close() {
        p.close();
    }

    @Test
    void shouldResendOnlyTheOldestPacketWhileTheResponderStallsAndUndoTheTimeoutAfter() {
        SrdContext ctx = p.warmUp();
        double before = ctx.sender.cwnd.window();
        p.post(16, 64);
        p.stallB(3 * MS);
        int flight = ctx.sender.inflight;
        assertTrue(flight >= 4, "a flight in the air when B stopped: " + flight);
        assertTrue(p.a.counters.rtoEvents > 0, "the stall outlasts the RTO");
        long retransmitted = p.a.counters.txRetransmits;
        assertTrue(retransmitted < flight, "one copy per expiry, of the oldest, not the flight: " + retransmitted + " of " + flight);

        assertTrue(p.f.runUntil(p::allCompleted, 20 * MS));
        p.f.runFor(MS);
        assertEquals(retransmitted, p.a.counters.txRetransmits, "nothing more went after the stall");
        assertEquals(1, p.a.counters.frtoSpuriousTimeouts, "the timeout found spurious");
        assertEquals(p.a.counters.txRetransmits, p.b.counters.duplicates, "each copy arrived as a duplicate");
        assertEquals(p.a.counters.txRetransmits, p.a.counters.spuriousRetransmits, "and each was found spurious");
        assertEquals(1, p.a.counters.undos);
        assertTrue(ctx.sender.cwnd.window() >= before, "the window is back: " + ctx.sender.cwnd.window() + " < " + before);
        assertEquals(ctx.sender.paths.count(), ctx.sender.paths.healthyCount(), "every path in use again");
    }
}
