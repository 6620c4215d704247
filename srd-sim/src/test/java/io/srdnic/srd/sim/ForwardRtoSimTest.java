package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * F-RTO (RFC 5682) in whole simulated runs, seeded and in virtual time: hosts that stall 1 % of
 * the time (0.1 to 5 ms each) on a lossless network only delay ACKs, so a timeout sends one copy
 * (of the oldest packet, once per expiry while the stall lasts) where the whole flight went
 * before, and every copy is found spurious and its timeout undone. With real loss besides, every
 * message is still delivered exactly once and none hangs.
 */
class ForwardRtoSimTest {
    static final long MESSAGES = 60_000;

    /** One sender, one receiver, 10 Gbit/s links of 20 us each (RTT ≈ 130 us), 4 KiB messages, 16 paths. */
    private static Scenario stalling(double loss) {
        return new Scenario(2, MESSAGES, 4096, loss, 0, 0, 20_000, 500, 16, Set.of(), true, 10, Scenario.DEFAULT_TIME_LIMIT_NANOS, 5,
            Scenario.Events.NONE.withHostStalls(0.01));
    }

    private static void print(String what, SimReport r) {
        Map<String, Long> c = r.transportCounters();
        System.out.printf("%s: goodput %.2f Gbit/s, retransmits %d, rto %d, rack %d, spurious %d, episodes %d, undos %d, "
            + "frto spurious %d, duplicates %d%n", what, r.goodputGbps(), r.retransmits(), c.get("rto_events"), c.get("rack_losses"),
            c.get("spurious_retransmits"), c.get("loss_episodes"), c.get("undos"), c.get("frto_spurious_timeouts"), c.get("duplicates"));
    }

    @Test
    void shouldSendFewCopiesAndUndoEveryTimeoutWhenStallsOnlyDelayTheAcks() {
        SimReport r = SrdSimulation.run(stalling(0));
        print("lossless, 1% stalls", r);
        Map<String, Long> c = r.transportCounters();
        assertTrue(r.passed(), "every message delivered once and completed: " + r.violations());
        assertEquals(MESSAGES, r.completedOk());
        // Before F-RTO each expiry sent the whole flight again: 191 copies in this run (3 per 1,000 messages).
        assertTrue(r.retransmits() * 1000 < MESSAGES, "fewer than one copy per 1,000 messages: " + r.retransmits());
        assertEquals(r.retransmits(), c.get("spurious_retransmits"), "nothing is lost here: every copy found spurious");
        assertEquals(c.get("duplicates"), c.get("spurious_retransmits"));
        assertTrue(c.get("frto_spurious_timeouts") > 0, "the stalls' timeouts found spurious by F-RTO");
        assertTrue(c.get("undos") >= c.get("frto_spurious_timeouts"), "and undone");
    }

    @Test
    void shouldDeliverEveryMessageExactlyOnceWhenRealLossFollowsTheTimeouts() {
        SimReport r = SrdSimulation.run(stalling(0.01));
        print("1% loss, 1% stalls", r);
        assertTrue(r.passed(), "every message delivered once, none lost or hung: " + r.violations());
        assertEquals(MESSAGES, r.completedOk());
        assertEquals(0, r.duplicatesDelivered());
        assertTrue(r.retransmits() > r.transportCounters().get("spurious_retransmits"), "real losses were recovered too");
    }

    /**
     * Lossless networks whose hosts stall 5 % of the time: two hosts sending to each other, and two
     * sending to a third, at 10 and 40 Gbit/s, 2 and 20 us links. Every copy must be found spurious
     * and every loss episode (each began with a timeout here) undone: none left standing.
     */
    @ParameterizedTest
    @CsvSource({"2, 10, 2000, 3", "2, 40, 2000, 2", "3, 10, 2000, 3", "3, 10, 20000, 2", "3, 40, 20000, 3"})
    void shouldFindEveryCopySpuriousAndUndoEveryEpisodeOnALosslessNetwork(int hosts, double gbps, long delay, long seed) {
        Scenario s = new Scenario(hosts, 30_000, 4096, 0, 0, 0, delay, 500, 16, Set.of(), hosts == 3, gbps,
            Scenario.DEFAULT_TIME_LIMIT_NANOS, seed, Scenario.Events.NONE.withHostStalls(0.05));
        SimReport r = SrdSimulation.run(s);
        print(hosts + " hosts, " + gbps + " Gbit/s, " + delay + " ns links, 5% stalls", r);
        Map<String, Long> c = r.transportCounters();
        assertTrue(r.passed(), "every message delivered once and completed: " + r.violations());
        assertTrue(r.retransmits() > 0, "the stalls caused timeouts");
        assertEquals(r.retransmits(), c.get("spurious_retransmits"), "every copy found spurious");
        assertEquals(c.get("loss_episodes"), c.get("undos"), "every episode undone");
    }
}
