package io.srdnic.srd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Spraying, avoidance and probing of paths. */
class PathSetTest {
    @Test
    void shouldSprayOverEveryPathAndNeverRetransmitOnThePathThatLost() {
        PathSet paths = new PathSet(16, 1_000_000, 0);
        int[] used = new int[16];
        for (int i = 0; i < 160; i++) {
            used[paths.choose(PathSet.NONE)]++;
        }
        for (int u : used) {
            assertEquals(10, u, "round robin over all 16 entropy values");
        }
        for (int lost = 0; lost < 16; lost++) {
            for (int i = 0; i < 20; i++) {
                assertNotEquals(lost, paths.choose(lost));
            }
        }
    }

    @Test
    void shouldAvoidATimedOutPathThenProbeItBack() {
        PathSet paths = new PathSet(4, 1_000, 0);
        paths.onTimeout(2, 0);
        assertFalse(paths.isHealthy(2));
        paths.onTimeout(2, 10);
        assertEquals(3, paths.healthyCount(), "a second timeout of an avoided path counts it once");
        assertEquals(1_000, paths.nextDeadline());
        for (int i = 0; i < 40; i++) {
            assertNotEquals(2, paths.choose(PathSet.NONE));
        }
        assertEquals(PathSet.NONE, paths.probeDue(999));
        assertEquals(2, paths.probeDue(1_000));
        paths.onProbeSent(2, 1_000, 500);
        assertEquals(PathSet.NONE, paths.probeDue(1_200), "one probe at a time");
        paths.expireProbes(1_500);
        assertEquals(PathSet.NONE, paths.probeDue(2_000), "an unanswered probe doubles the avoidance");
        assertEquals(2, paths.probeDue(1_500 + 2_000));
        paths.onProbeReply(2);
        assertTrue(paths.isHealthy(2));
        paths.onProbeReply(2); // a duplicated reply
        assertEquals(4, paths.healthyCount());
        assertEquals(Long.MAX_VALUE, paths.nextDeadline());
        assertEquals(PathSet.NONE, paths.probeDue(1L << 40));
    }

    @Test
    void shouldAvoidAPathAfterARunOfLossesButNotAfterScatteredOnes() {
        PathSet paths = new PathSet(4, 1_000, 0);
        paths.onLoss(1, 0);
        paths.onRtt(1, 10_000);
        paths.onLoss(1, 0);
        paths.onRtt(1, 10_000);
        assertTrue(paths.isHealthy(1), "losses between deliveries are chance");
        for (int i = 0; i < PathSet.LOSS_RUN_TO_AVOID; i++) {
            paths.onLoss(3, 0);
        }
        assertFalse(paths.isHealthy(3));
    }

    @Test
    void shouldUseADeadPathAgainOnceItHeals() {
        try (SimFabric f = new SimFabric(4)) {
            SrdTransport a = f.addHost(new SrdConfig().paths(4).pathAvoidNanos(200_000));
            SrdTransport b = f.addHost(new SrdConfig().paths(4));
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 4096, 8);
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            f.network.blackhole(1, true);
            for (int i = 0; i < 400; i++) {
                a.postSend(qa.qp(), ah, qb.qpn(), SimFabric.QKEY, i, msg, 0, 8, false, 0, true);
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 400, 100_000_000));
            assertTrue(qa.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
            String during = a.contextReport().get(0);
            assertTrue(during.contains("[1 avoided"), during);
            f.network.blackhole(1, false);
            f.runFor(5_000_000); // avoidance ends, the probe is answered
            for (int i = 0; i < 400; i++) {
                a.postSend(qa.qp(), ah, qb.qpn(), SimFabric.QKEY, i, msg, 0, 8, false, 0, true);
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 400, 100_000_000));
            String after = a.contextReport().get(0);
            assertFalse(after.contains("avoided"), after);
            assertTrue(a.counters().txProbes > 0);
        }
    }
}
