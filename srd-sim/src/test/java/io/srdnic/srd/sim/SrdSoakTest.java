package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A long run keeps every pool and table at a steady occupancy: mbufs held and send requests in use
 * do not creep up from the first half of the run to the second, and all are returned at the end.
 * CI runs 150k messages; -Dsrdnic.scenarios=full runs 10M.
 */
class SrdSoakTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @Test
    void shouldKeepOccupancySteadyOverALongLossyRun() {
        long messages = "full".equals(System.getProperty("srdnic.scenarios")) ? 10_000_000 : 150_000;
        Scenario s = Scenario.basic(messages, 256, 17).withFaults(0.02, 0.01, 0.1).withHosts(3, false);
        SimReport r = SrdSimulation.run(s);
        assertTrue(r.passed(), r.toString());
        List<Integer> pool = r.poolInUseSamples();
        List<Integer> requests = r.requestsInUseSamples();
        assertTrue(pool.size() >= 10, "samples: " + pool);
        int half = pool.size() / 2;
        int poolEarly = pool.subList(1, half).stream().max(Integer::compare).orElseThrow();
        int poolLate = pool.subList(half, pool.size()).stream().max(Integer::compare).orElseThrow();
        int reqEarly = requests.subList(1, half).stream().max(Integer::compare).orElseThrow();
        int reqLate = requests.subList(half, requests.size()).stream().max(Integer::compare).orElseThrow();
        System.out.printf("soak %d messages: mbufs held early/late %d/%d, requests in use early/late %d/%d%n",
            messages, poolEarly, poolLate, reqEarly, reqLate);
        assertTrue(poolLate <= poolEarly * 1.5 + 64, "mbufs held must not creep up: " + pool);
        assertTrue(reqLate <= reqEarly * 1.5 + 64, "send requests in use must not creep up: " + requests);
        assertEquals(0, r.requestsInUseAtEnd(), "every request returned");
    }
}
