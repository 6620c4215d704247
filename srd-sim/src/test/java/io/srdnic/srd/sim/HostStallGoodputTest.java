package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Hosts whose threads stop for 0.1 to 5 ms at random (a descheduled process, a preempted vCPU, a GC
 * pause), 1 % of the time each: the transport must lose to them about the time they take, not cut
 * its window and send what is in flight again at every one. One sender, one receiver, 10 Gbit/s
 * links with 20 us of delay each (a round trip of some 130 us, as across a few switches), 4 KiB
 * messages. Virtual time throughout: the goodput is a property of the simulated run, not of the
 * machine running it.
 */
class HostStallGoodputTest {
    static final long MESSAGES = 60_000;
    static final double GBPS = 10;

    private static Scenario scenario(double stalled) {
        return new Scenario(2, MESSAGES, 4096, 0, 0, 0, 20_000, 500, 16, Set.of(), true, GBPS, Scenario.DEFAULT_TIME_LIMIT_NANOS, 5,
            Scenario.Events.NONE.withHostStalls(stalled));
    }

    @Test
    void shouldKeepGoodputWithinATenthOfTheStallFreeRunWhenHostsStallOnePercentOfTheTime() {
        SimReport clean = SrdSimulation.run(scenario(0));
        SimReport stalled = SrdSimulation.run(scenario(0.01));
        double ratio = stalled.goodputGbps() / clean.goodputGbps();
        Map<String, Long> c = stalled.transportCounters();
        System.out.printf("host stalls 1%%: goodput %.2f vs %.2f Gbit/s stall-free (%.3f), retransmits %d vs %d, spurious %d, undos %d, "
            + "duplicates at the receiver %d, virtual %d us%n", stalled.goodputGbps(), clean.goodputGbps(), ratio, stalled.retransmits(),
            clean.retransmits(), c.get("spurious_retransmits"), c.get("undos"), c.get("duplicates"), stalled.virtualTimeUs());
        assertTrue(clean.passed() && stalled.passed(), "every message delivered once and completed: " + stalled.violations());
        assertEquals(MESSAGES, stalled.completedOk());
        // 4096 of every 4186 bytes on the wire are payload: 9.78 Gbit/s is the most a 10 Gbit/s link carries.
        assertTrue(clean.goodputGbps() > 0.8 * GBPS, "the stall-free run keeps the link busy: " + clean.goodputGbps());
        assertTrue(ratio >= 0.9, "goodput with 1% host stalls must stay within 10% of the stall-free run: " + ratio);
        // Nothing is lost on this network: every retransmission was spurious, and each must have been found out.
        assertEquals(c.get("duplicates"), c.get("spurious_retransmits"), "every spurious retransmission detected");
        assertEquals(stalled.retransmits(), c.get("spurious_retransmits"));
    }
}
