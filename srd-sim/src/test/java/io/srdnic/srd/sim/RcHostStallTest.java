package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.TransportConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * RC 64 KiB RDMA WRITEs between two hosts that stall (0.1 to 5 ms at random, seeded) a fifth of
 * the time, on a lossless network: a stalled but alive peer must not exhaust the requester's
 * retry_cnt (7, with a 65 us local ACK timeout), and every copy the stalls caused must be found
 * spurious and its episode undone. Virtual time.
 */
class RcHostStallTest {
    @Test
    void shouldCompleteEveryWriteWithoutRetryExceededWhenBothHostsStall() {
        for (long seed = 1; seed <= 3; seed++) {
            Scenario s = new Scenario(2, 300, 65536, 0, 0, 0, 2_000, 500, 16, Set.of(), false, 10, Scenario.DEFAULT_TIME_LIMIT_NANOS,
                seed, Scenario.Events.NONE.withHostStalls(0.2));
            RcSimulation.Report r = RcSimulation.run(s, List.of(RcOp.RDMA_WRITE), port -> port, new TransportConfig());
            Map<String, Long> c = r.counters();
            System.out.printf("seed %d: ok %d of %d, retransmits %d, spurious %d, episodes %d, undos %d, errors %s%n", seed, r.ok(),
                r.messages(), r.retransmits(), c.get("spurious_retransmits"), c.get("loss_episodes"), c.get("undos"), r.errorsByStatus());
            assertTrue(r.passed(), "every WRITE completed SUCCESS and landed: " + r.failures() + " " + r.errorsByStatus());
            assertEquals(0, c.getOrDefault("rc_retry_exceeded", 0L));
            assertTrue(r.retransmits() > 0, "the stalls outlasted the timeout");
            assertEquals(r.retransmits(), c.get("spurious_retransmits"), "nothing is lost: every copy found spurious");
            assertEquals(c.get("loss_episodes"), c.get("undos"), "and every episode undone");
        }
    }
}
