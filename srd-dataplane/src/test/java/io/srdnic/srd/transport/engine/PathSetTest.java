package io.srdnic.srd.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Spraying, avoidance and probing of paths. */
class PathSetTest {
    @Test
    void shouldSprayOverEveryPath() {
        PathSet paths = new PathSet(16, 1_000_000, 0);
        int[] used = new int[16];
        for (int i = 0; i < 160; i++) {
            used[paths.choose(PathSet.NONE)]++;
        }
        for (int u : used) {
            assertEquals(10, u, "round robin over all 16 entropy values");
        }
    }

    @Test
    void shouldNeverRetransmitOnThePathThatLost() {
        PathSet paths = new PathSet(16, 1_000_000, 0);
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

}
