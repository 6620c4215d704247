package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Sixteen senders into one receiver over a 100 Gbit/s bottleneck (the SRD issue's incast
 * scenario, as {@code srdnic sim --hosts 17 --incast --size 4096 --paths 16 --link-gbps 100 --seed 2}):
 * the delay-based window keeps the link busy and its queue short, and the senders share it evenly.
 * Simulated time: the figures are properties of the run, not of this machine.
 */
class IncastFairnessTest {
    @Test
    void shouldKeepTheBottleneckBusyItsQueueShortAndItsSharesEvenInASixteenToOneIncast() {
        Scenario s = new Scenario(17, 40_000, 4096, 0, 0, 0, 2_000, 500, 16, Set.of(), true, 100, Scenario.DEFAULT_TIME_LIMIT_NANOS, 2);
        SimReport r = SrdSimulation.run(s);
        System.out.printf("16-to-1 incast: goodput %.2f Gbit/s, deepest queue %d bytes, sender fairness %.4f, retransmits %d, "
            + "spurious %d, undos %d%n", r.goodputGbps(), r.maxQueueBytes(), r.senderFairness(), r.retransmits(),
            r.transportCounters().get("spurious_retransmits"), r.transportCounters().get("undos"));
        assertTrue(r.passed(), r.violations().toString());
        assertEquals(40_000, r.completedOk());
        assertTrue(r.goodputGbps() > 90, "above 90% of the 100 Gbit/s bottleneck: " + r.goodputGbps());
        assertTrue(r.maxQueueBytes() < 1024 * 1024 / 2, "the bottleneck queue under half its 1 MiB: " + r.maxQueueBytes());
        assertTrue(r.senderFairness() > 0.9, "the sixteen senders share the bottleneck evenly (Jain's index): " + r.senderFairness());
    }
}
