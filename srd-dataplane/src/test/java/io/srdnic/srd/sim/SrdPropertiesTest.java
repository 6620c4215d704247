package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.WcStatus;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Properties of the transport over random fault schedules and seeds (each try a whole simulated
 * run): every posted message completes exactly once (SimHost throws on a second completion); every
 * successful completion matches exactly one delivery; nothing is delivered twice or lost; statuses
 * are the seed's.
 */
class SrdPropertiesTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final Set<String> SEED_STATUSES = Set.of("LOCAL_LENGTH_ERROR", "LOCAL_QP_OPERATION_ERROR", "LOCAL_PROTECTION_ERROR",
        "WR_FLUSH_ERROR", "BAD_RESPONSE_ERROR", "REMOTE_INVALID_REQUEST_ERROR", "REMOTE_OPERATION_ERROR", "BAD_DEST_QP_ERROR",
        "RNR_ERROR", WcStatus.name(WcStatus.REMOTE_UNRESPONSIVE));

    @Property(tries = 25)
    void everyMessageCompletesOnceAndIsDeliveredOnce(
        @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long seed,
        @ForAll @IntRange(min = 2, max = 4) int hosts,
        @ForAll boolean incast,
        @ForAll @IntRange(min = 1, max = 16) int paths,
        @ForAll @DoubleRange(min = 0, max = 0.3) double loss,
        @ForAll @DoubleRange(min = 0, max = 0.3) double duplicate,
        @ForAll @DoubleRange(min = 0, max = 0.6) double reorder,
        @ForAll @IntRange(min = 0, max = 2048) int size,
        @ForAll @IntRange(min = 50, max = 1500) int messages,
        @ForAll boolean blackholeOnePath) {
        Set<Integer> dead = blackholeOnePath && paths > 1 ? Set.of((int) Math.floorMod(seed, paths)) : Set.of();
        Scenario s = new Scenario(hosts, messages, size, loss, duplicate, reorder, 2_000, 500, paths, dead, incast, 100,
            Scenario.DEFAULT_TIME_LIMIT_NANOS, seed);
        SimReport r = SrdSimulation.run(s);
        assertEquals(messages, r.completedOk() + r.completedError(), "every message completes: " + r);
        assertEquals(0, r.unfinished());
        assertEquals(0, r.duplicatesDelivered(), "at most once");
        assertEquals(0, r.successWithoutDelivery(), "success only after the responder accepted it");
        assertEquals(0, r.corruptDeliveries());
        assertEquals(0, r.lost());
        assertEquals(r.completedOk() + r.deliveredButFailed(), r.delivered(), "each delivery answers to one completion");
        assertTrue(SEED_STATUSES.containsAll(r.completedErrorByStatus().keySet()), "statuses: " + r.completedErrorByStatus());
    }
}
