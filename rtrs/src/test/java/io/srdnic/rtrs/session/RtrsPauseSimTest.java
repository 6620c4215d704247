package io.srdnic.rtrs.session;

import static io.srdnic.rtrs.session.RtrsSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.rtrs.client.MpPolicy;
import io.srdnic.rtrs.client.PathState;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.rtrs.link.RcRetry;
import org.junit.jupiter.api.Test;

/**
 * A server that stops answering for a while (a GC pause, a SIGSTOP, a stalled host) looks, from the
 * client, like every path going silent at once. Liveness must outlast it: the RC connections' retry
 * limits (set through the CM) and the heartbeats are seconds, so a 2 s silence costs latency, not IO.
 */
class RtrsPauseSimTest {
    /** nbd-local's heartbeat: every 2 s, dead after 4 missed. */
    private static final long HB = 2000 * MS;
    private static final int HB_MISSED = 4;

    @Test
    void shouldRideThroughTwoSecondsOfSilenceOnEveryPathWithoutFailingAnIo() {
        try (RtrsSim sim = new RtrsSim(21, 2, RtrsSim.smallServer().heartbeat(HB, HB_MISSED), 64 << 20)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient().heartbeat(HB, HB_MISSED).policy(MpPolicy.ROUND_ROBIN));
            IoDriver io = new IoDriver(c, 20_000);
            long silentFrom = 0;
            boolean silent = false;
            boolean spoke = false;
            long lastSubmit = 0;
            long end = sim.now() + 30_000 * MS;
            while (!io.finished() && sim.now() - end < 0) {
                if (sim.now() - lastSubmit >= 100_000) {
                    io.submit(1);
                    lastSubmit = sim.now();
                }
                c.poll();
                sim.server.poll();
                if (!silent && io.completed >= 200) {
                    sim.cut(0, true); // every path at once, with IO in flight on both
                    sim.cut(1, true);
                    silent = true;
                    silentFrom = sim.now();
                }
                if (silent && !spoke && sim.now() - silentFrom >= 2000 * MS) {
                    sim.cut(0, false);
                    sim.cut(1, false);
                    spoke = true;
                }
            }
            assertTrue(spoke, "the silence ended while IO ran");
            assertTrue(io.finished(), io.completed + " of " + io.submitted + " ended");
            assertEquals(0, io.failed, "no IO failed: " + c.statsSnapshot(0) + " " + c.statsSnapshot(1));
            assertEquals(0, io.refused, "no submit was refused");
            io.assertAllWrittenOnce(sim.disk);
            for (int p = 0; p < 2; p++) {
                assertEquals(PathState.CONNECTED, c.state(p));
                assertEquals(0, c.stats(p).failovers(), "path " + p + " never failed: " + c.statsSnapshot(p));
                assertEquals(0, c.stats(p).reconnectsOk() + c.stats(p).reconnectsFailed(), "path " + p + " never reconnected");
            }
            assertEquals(0, sim.server.counters().get("paths_closed"), "nor did the server close one");
        }
    }

    @Test
    void shouldStillFailOverWhenAPathStaysSilentLongerThanItsRetryLimit() {
        RcRetry shortRetry = new RcRetry(14, 7, 7); // ~0.5 s
        try (RtrsSim sim = new RtrsSim(22, 2, RtrsSim.smallServer().heartbeat(HB, HB_MISSED).rcRetry(shortRetry), 64 << 20)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient().heartbeat(HB, HB_MISSED).rcRetry(shortRetry).policy(MpPolicy.ROUND_ROBIN));
            IoDriver io = new IoDriver(c, 64);
            io.submit();
            sim.cut(0, true);
            long cutAt = sim.now();
            assertTrue(sim.run(() -> c.state(0) != PathState.CONNECTED, 10_000 * MS), "path 0 given up");
            long took = sim.now() - cutAt;
            assertTrue(took >= shortRetry.giveUpNanos() && took < HB, "given up by RC's limit set through the CM, before the heartbeat"
                + " could: " + took / MS + " ms");
            assertTrue(sim.run(() -> {
                io.submit();
                return io.finished();
            }, 10_000 * MS), io.completed + " of " + io.total);
            assertEquals(0, io.failed, "path 1 took path 0's IO");
            assertTrue(c.stats(1).failovers() > 0, c.statsSnapshot(1).toString());
        }
    }
}
