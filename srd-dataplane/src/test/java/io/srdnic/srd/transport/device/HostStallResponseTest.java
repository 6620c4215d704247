package io.srdnic.srd.transport.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.transport.srd.SrdContext;
import org.junit.jupiter.api.Test;

/**
 * What a requester learns from a responder host that stalls (its thread descheduled: nothing read,
 * nothing answered): an RTO floor above the stalls it has shown recently, so the next such stall
 * sends nothing again; a window cut once for one stall, however many RTOs it outlasts; and a delay
 * target that allows the packets' own service time, so a slow link is not read as congestion.
 * Simulated time throughout.
 */
class HostStallResponseTest {
    static final long US = 1_000;
    static final long MS = 1_000_000;

    @Test
    void shouldNotTimeOutAgainOnAStallNoLongerThanOneThePeerShowedRecently() {
        try (GatedPair p = new GatedPair(LinkConfig.DEFAULT, 64)) {
            p.warmUp();
            p.post(4, 64);
            p.stallB(3 * MS);
            long first = p.a.counters.rtoEvents;
            assertTrue(first > 0, "the first stall outlasts the RTO the RTT alone gives");
            assertTrue(p.f.runUntil(p::allCompleted, 10 * MS));
            // Some 200 round trips of ordinary traffic: the smoothed RTT and its variance forget the stall.
            for (int round = 0; round < 25; round++) {
                p.post(8, 64);
                assertTrue(p.f.runUntil(p::allCompleted, 10 * MS));
            }
            assertTrue(p.a.existingContext(SimFabric.flow(1)).sender.rtt.srtt() < 100 * US, "the RTT is short again");

            p.post(4, 64);
            p.stallB(3 * MS);
            assertEquals(first, p.a.counters.rtoEvents, "the RTO stays above the stall B showed: nothing goes again");
            assertTrue(p.f.runUntil(p::allCompleted, 10 * MS));
        }
    }

    @Test
    void shouldCutTheWindowOnceForOneStallHoweverManyTimeoutsItOutlasts() {
        try (GatedPair p = new GatedPair(LinkConfig.DEFAULT, 64)) {
            SrdContext ctx = p.warmUp();
            double before = ctx.sender.cwnd.window();
            p.post(4, 64);
            p.stallB(5 * MS);
            assertTrue(p.a.counters.rtoEvents >= 3, "the RTO expired again and again: " + p.a.counters.rtoEvents);
            assertTrue(ctx.sender.cwnd.window() >= before / 2 - 1e-9, "halved once, not per expiry: " + ctx.sender.cwnd.window()
                + " from " + before);
            assertTrue(p.f.runUntil(p::allCompleted, 20 * MS));
        }
    }

    @Test
    void shouldFillASlowLinkWhoseOnePacketTakesLongerThanTheQueueingBudget() {
        // 1 Gbit/s: a 4 KiB packet takes 33 us to serialize, over twice the 15 us queueing budget.
        LinkConfig slow = LinkConfig.builder().bitsPerSecond(1_000_000_000L).build();
        try (GatedPair p = new GatedPair(slow, 4096)) {
            int messages = 600;
            long start = p.f.network.clock().now();
            p.post(messages, 4096);
            assertTrue(p.f.runUntil(p::allCompleted, 200 * MS));
            long elapsed = p.f.network.clock().now() - start;
            double gbps = 8.0 * 4096 * messages / elapsed;
            SrdContext ctx = p.a.existingContext(SimFabric.flow(1));
            System.out.printf("1 Gbit/s link: %.3f Gbit/s goodput, window %.1f, service time %d ns, srtt %d ns, retransmits %d%n", gbps,
                ctx.sender.cwnd.window(), ctx.sender.cwnd.serviceTime(), ctx.sender.rtt.srtt(), p.a.counters.txRetransmits);
            assertTrue(gbps > 0.85, "the link stays busy: " + gbps + " Gbit/s of 1");
        }
    }
}
