package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stalling-host fault: each host's stalls are seeded, within their bounds, and add up to the fraction asked for. */
class SimHostStallsTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    private static final long US = 1_000;
    private static final long HORIZON = 20_000_000_000L; // 20 s of virtual time: some 80 stalls a host at 1 %

    /** Every stall of host {@code host} up to the horizon, as {start, end}, walking the clock in 10 us steps. */
    private static List<long[]> stallsOf(SimNetwork network, int host) {
        List<long[]> stalls = new ArrayList<>();
        for (long t = 0; t < HORIZON; t += 10 * US) {
            long end = network.stallEnd(host, t);
            if (end != t) {
                stalls.add(new long[] {t, end});
                t = end - 10 * US;
            }
        }
        return stalls;
    }

    private static SimNetwork network(long seed, HostStalls stalls) {
        SimNetwork n = new SimNetwork(seed, SimNetwork.Config.builder().poolSize(16).hostStalls(stalls).build());
        n.addHost(0x02_00_00_00_00_01L);
        n.addHost(0x02_00_00_00_00_02L);
        return n;
    }

    @Test
    void shouldStallEachHostForTheFractionOfTimeAskedWithinTheBounds() {
        try (SimNetwork n = network(3, HostStalls.of(0.01))) {
            for (int host = 0; host < 2; host++) {
                List<long[]> stalls = stallsOf(n, host);
                long stalled = 0;
                for (long[] s : stalls) {
                    long length = s[1] - s[0];
                    // Seen at 10 us steps: a stall is found up to 10 us after it began.
                    assertTrue(length > 0 && length <= 5_000 * US, "a stall lasts 0.1 to 5 ms: " + length);
                    stalled += length;
                }
                double fraction = stalled / (double) HORIZON;
                assertTrue(stalls.size() > 40, "stalls seen: " + stalls.size());
                assertTrue(fraction > 0.006 && fraction < 0.014, "host " + host + " stalled " + fraction + " of the time");
            }
        }
    }

    @Test
    void shouldStallTheSameWayForTheSameSeedAndDifferentlyPerHost() {
        try (SimNetwork a = network(7, HostStalls.of(0.01)); SimNetwork b = network(7, HostStalls.of(0.01))) {
            List<long[]> a0 = stallsOf(a, 0);
            List<long[]> b0 = stallsOf(b, 0);
            assertEquals(a0.size(), b0.size());
            for (int i = 0; i < a0.size(); i++) {
                assertEquals(a0.get(i)[0], b0.get(i)[0]);
                assertEquals(a0.get(i)[1], b0.get(i)[1]);
            }
            assertNotEquals(a0.getFirst()[0], stallsOf(a, 1).getFirst()[0], "each host has its own schedule");
        }
    }

    @Test
    void shouldNeverStallWithoutTheFaultAndRefuseNonsense() {
        try (SimNetwork n = network(1, HostStalls.NONE)) {
            assertTrue(stallsOf(n, 0).isEmpty());
        }
        assertThrows(IllegalArgumentException.class, () -> new HostStalls(1.0, 100, 200));
        assertThrows(IllegalArgumentException.class, () -> new HostStalls(0.1, 0, 200));
        assertThrows(IllegalArgumentException.class, () -> new HostStalls(0.1, 300, 200));
    }
}
