package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.sim.AllToAllSimulation.Report;
import io.srdnic.srd.sim.AllToAllSimulation.Transport;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code srdnic sim --all-to-all}: every job reaches every job of every other node over RC, SRC and
 * SRD, each message checked, with the QPs and contexts the seeds count: RC one QP per pair of jobs,
 * SRC one per job per remote node, SRD one per job and one context per remote node.
 */
class AllToAllSimulationTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static Scenario links(int nodes, double loss, long seed) {
        return new Scenario(nodes, 1, 64, loss, loss, loss, 2_000, 0, 16, Set.of(), false, 100, 5_000_000_000L, seed);
    }

    private static Report run(Transport t, int nodes, int jobs, double loss) {
        Report r = AllToAllSimulation.run(links(nodes, loss, 5), t, jobs, 64, new TransportConfig());
        assertTrue(r.passed(), r.toString());
        assertEquals((long) nodes * jobs * (nodes - 1) * jobs, r.messages());
        assertEquals(r.messages(), r.delivered());
        return r;
    }

    @Test
    void shouldConnectEveryJobToEveryRemoteJobWithTheQpsEachTransportNeeds() {
        int n = 4;
        int j = 3;
        Report rc = run(Transport.RC, n, j, 0);
        Report src = run(Transport.SRC, n, j, 0);
        Report srd = run(Transport.SRD, n, j, 0);
        assertEquals((long) j * j * (n - 1), rc.qpsPerNode(), "RC: one QP per pair of jobs");
        assertEquals(rc.qpsPerNode(), rc.contextsPerNode(), "RC: a reliability context per QP");
        assertEquals((long) j * (n - 1), src.qpsPerNode(), "SRC: one QP per job per remote node");
        assertEquals(j, srd.qpsPerNode(), "SRD: one QP per job");
        assertEquals(n - 1, srd.contextsPerNode(), "SRD: one implicit context per remote node");
        assertTrue(rc.stateBytesPerNode() > src.stateBytesPerNode(), "transport state: RC's QPs cost more than SRC's: " + rc + " " + src);
        assertTrue(srd.stateBytesPerNode() > 0, "measured, not computed: " + srd);
    }

    @Test
    void shouldDeliverEveryMessageOnceOnAFaultyFabric() {
        for (Transport t : Transport.values()) {
            Report r = run(t, 3, 2, 0.05);
            assertTrue(r.virtualTimeUs() > 0, r.toString());
        }
    }
}
