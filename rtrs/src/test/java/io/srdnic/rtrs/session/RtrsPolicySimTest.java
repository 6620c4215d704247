package io.srdnic.rtrs.session;

import static io.srdnic.rtrs.session.RtrsSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.rtrs.client.MpPolicy;
import io.srdnic.rtrs.client.PathState;
import io.srdnic.rtrs.client.RtrsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** mp_policy picks the path per IO; paths come and go at run time. */
class RtrsPolicySimTest {

    @ParameterizedTest
    @EnumSource(value = MpPolicy.class, names = {"MIN_INFLIGHT", "ROUND_ROBIN"})
    void shouldSpreadABurstEvenlyOverThePaths(MpPolicy policy) {
        try (RtrsSim sim = new RtrsSim(8, 2, RtrsSim.smallServer(), 1 << 20)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient().policy(policy));
            IoDriver io = new IoDriver(c, 16);
            io.submit(); // all 16 permits at once, before any answer
            assertEquals(8, c.stats(0).inflight(), policy + ": half on each path");
            assertEquals(8, c.stats(1).inflight(), policy.toString());
            assertTrue(sim.run(io::finished, 500 * MS));
            io.assertAllWrittenOnce(sim.disk);
            assertEquals(8, c.stats(0).writes());
            assertEquals(8, c.stats(1).writes());
        }
    }

    @Test
    void shouldTakeIoOnAPathAddedAtRunTimeAndMoveItOffAPathRemoved() {
        try (RtrsSim sim = new RtrsSim(9, 2, RtrsSim.smallServer(), 1 << 20)) {
            sim.client = RtrsClient.open(RtrsSim.smallClient(), sim.addresses().subList(0, 1));
            RtrsClient c = sim.client;
            assertTrue(sim.run(c::connected, 2000 * MS));
            int added = c.addPath(sim.addresses().get(1));
            assertEquals(PathState.CONNECTING, c.state(added));
            assertTrue(sim.run(c::connected, 2000 * MS), "connected again once the new path is");
            assertEquals(2, sim.server.connectedPaths());
            IoDriver io = new IoDriver(c, 16);
            io.submit();
            c.removePath(0); // with its half of the IO in flight
            assertEquals(PathState.CLOSED, c.state(0));
            assertTrue(sim.run(io::finished, 1000 * MS));
            io.assertAllWrittenOnce(sim.disk);
            assertEquals(8, c.stats(1).failovers(), "path 0's IO went to path 1");
            assertTrue(c.connected(), "a removed path does not count");
        }
    }
}
