package io.srdnic.rtrs.session;

import static io.srdnic.rtrs.session.RtrsSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.rtrs.client.MpPolicy;
import io.srdnic.rtrs.client.PathState;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.rtrs.protocol.Errno;
import org.junit.jupiter.api.Test;

/** Faults on the simulator: a path's link cut mid-IO, then both; IO is never lost or completed twice. */
class RtrsFailoverSimTest {

    @Test
    void shouldFailOverInFlightIoWhenOnePathIsCutAndReconnectItWhenTheLinkReturns() {
        try (RtrsSim sim = new RtrsSim(2, 2, RtrsSim.smallServer(), 64 << 20)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient().policy(MpPolicy.ROUND_ROBIN));
            IoDriver io = new IoDriver(c, 100_000);
            long writesAtRestore = 0;
            long lastSubmit = 0;
            boolean cut = false;
            boolean restored = false;
            long end = sim.now() + 20_000 * MS;
            while (!io.finished() && sim.now() - end < 0) {
                if (sim.now() - lastSubmit >= 100_000) { // a write per 100 us of virtual time: the run spans the fault
                    io.submit(1);
                    lastSubmit = sim.now();
                }
                c.poll();
                sim.server.poll();
                if (!cut && io.completed >= 100) {
                    sim.cut(0, true); // with IO in flight on both paths
                    cut = true;
                }
                if (cut && !restored && c.stats(0).reconnectsFailed() >= 1) { // down, and a reconnect attempt has failed
                    sim.cut(0, false);
                    restored = true;
                    writesAtRestore = c.stats(0).writes();
                }
                if (restored && io.total == 100_000 && c.stats(0).writes() > writesAtRestore + 100) {
                    io.stop(); // path 0 carries IO again: let what is in flight finish
                }
            }
            assertTrue(io.finished(), "all " + io.submitted + " writes ended: " + io.completed);
            assertTrue(restored, "the link came back while IO ran: " + c.state(0) + " " + c.statsSnapshot(0) + " " + c.statsSnapshot(1)
                + " completed " + io.completed + " submitted " + io.submitted + " server " + sim.server.counters());
            io.assertAllWrittenOnce(sim.disk);
            assertEquals(0, io.refused, "a path was always left");
            assertTrue(c.stats(1).failovers() > 0, "path 0's in-flight IO went over to path 1: " + c.statsSnapshot(1));
            assertTrue(sim.run(() -> c.state(0) == PathState.CONNECTED, 5000 * MS), "path 0 reconnects once its link is back");
            assertTrue(c.stats(0).reconnectsOk() >= 1, c.statsSnapshot(0).toString());
            assertTrue(c.stats(0).reconnectsFailed() >= 1, "attempts while the link was cut failed: " + c.statsSnapshot(0));
            IoDriver after = new IoDriver(c, 64);
            assertTrue(sim.run(() -> {
                after.submit();
                return after.finished();
            }, 5000 * MS));
            assertEquals(0, after.failed);
            assertTrue(c.stats(0).writes() > 0 && c.stats(1).writes() > 0, "both paths carry IO again");
        }
    }

    @Test
    void shouldFailIoWithAnErrnoOnlyWhenNoPathIsLeftAndRecoverWhenOneReturns() {
        try (RtrsSim sim = new RtrsSim(3, 2, RtrsSim.smallServer(), 1 << 20)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient());
            IoDriver io = new IoDriver(c, 16);
            sim.cut(0, true);
            sim.cut(1, true);
            io.submit(); // on paths that do not know yet
            assertTrue(sim.run(io::finished, 5000 * MS), "every IO ended");
            for (int k = 0; k < io.total; k++) {
                assertEquals(1, io.completions[k], "once");
                assertEquals(Errno.ECONNABORTED, io.errnos[k], "failed: no path left");
            }
            assertTrue(sim.run(() -> c.state(0) != PathState.CONNECTED && c.state(1) != PathState.CONNECTED, 100 * MS));
            IoDriver refused = new IoDriver(c, 1);
            refused.submit();
            assertEquals(1, refused.refused, "no path: submit says ECONNABORTED at once");
            sim.cut(1, false);
            assertTrue(sim.run(() -> c.state(1) == PathState.CONNECTED, 5000 * MS), "the session recovers on the path that returned");
            IoDriver again = new IoDriver(c, 32);
            assertTrue(sim.run(() -> {
                again.submit();
                return again.finished();
            }, 5000 * MS));
            again.assertAllWrittenOnce(sim.disk);
            sim.cut(0, false);
            assertTrue(sim.run(c::connected, 5000 * MS), "and both paths are back");
        }
    }

    @Test
    void shouldFailOverReadsAndDeliverEachOnceWithTheRightBytes() {
        try (RtrsSim sim = new RtrsSim(10, 2, RtrsSim.smallServer(), 1 << 20)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient().policy(MpPolicy.ROUND_ROBIN));
            IoDriver writes = new IoDriver(c, 1024);
            assertTrue(sim.run(() -> {
                writes.submit();
                return writes.finished();
            }, 5000 * MS));
            IoDriver reads = new IoDriver(c, 1024);
            reads.reading = true;
            long lastSubmit = 0;
            boolean cut = false;
            long end = sim.now() + 10_000 * MS;
            while (!reads.finished() && sim.now() - end < 0) {
                if (sim.now() - lastSubmit >= 1_000_000) { // a read per virtual ms: the fault lands mid-run
                    reads.submit(1);
                    lastSubmit = sim.now();
                }
                c.poll();
                sim.server.poll();
                if (!cut && reads.completed >= 100) {
                    sim.cut(1, true);
                    cut = true;
                }
            }
            assertTrue(reads.finished(), reads.completed + " of " + reads.total);
            for (int k = 0; k < reads.total; k++) {
                assertEquals(1, reads.completions[k], "read " + k + " completed once");
                assertEquals(0, reads.errnos[k], "read " + k);
            }
            assertEquals(0, reads.mismatches, "every read brought the bytes written");
            assertTrue(c.stats(0).failovers() > 0, c.statsSnapshot(0).toString());
            assertTrue(c.stats(0).reads() > c.stats(1).reads(), "path 0 carried the rest");
        }
    }

    @Test
    void shouldNoticeAnIdlePathsLossByHeartbeatsOnBothSides() {
        try (RtrsSim sim = new RtrsSim(11, 1, RtrsSim.smallServer(), 1 << 16)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient());
            assertTrue(sim.run(() -> c.stats(0).latencyNanos() > 0, 200 * MS), "heartbeats flow and measure the path");
            long cutAt = sim.now();
            sim.cut(0, true);
            assertTrue(sim.run(() -> c.state(0) != PathState.CONNECTED, 1000 * MS));
            long noticed = sim.now() - cutAt;
            // 3 misses allowed at 50 ms: dead at the 4th tick after the last answer, 150..200 ms after the cut; the
            // simulator's clock jumps from one transport event to the next (the heartbeat's timer is not one), so
            // the tick is seen at the first poll after it: up to one RC retransmission timeout (67 ms) later, or two.
            assertTrue(noticed >= 140 * MS && noticed <= 350 * MS, "noticed after " + noticed / MS + " ms");
            assertTrue(sim.run(() -> sim.server.connectedPaths() == 0, 1000 * MS), "the server's heartbeat closes its side too");
            assertEquals(1, sim.server.counters().get("paths_closed"));
            assertEquals(0, sim.server.sessions(), "its last path gone, the session is forgotten");
            sim.cut(0, false);
            assertTrue(sim.run(c::connected, 5000 * MS), "first_conn again: the server makes the session anew");
            assertEquals(1, sim.server.sessions());
            for (int round = 0; round < 3; round++) {
                sim.cut(0, true);
                assertTrue(sim.run(() -> sim.server.connectedPaths() == 0 && !c.connected(), 2000 * MS));
                sim.cut(0, false);
                assertTrue(sim.run(c::connected, 5000 * MS), "reconnect " + round);
            }
            assertEquals(1, sim.server.pathResourcesMade(), "each incarnation of the path took its predecessor's CQ and PD");
        }
    }

    @Test
    void shouldGiveAPathUpAsDeadOnceItsReconnectAttemptsAreSpent() {
        try (RtrsSim sim = new RtrsSim(13, 2, RtrsSim.smallServer(), 1 << 16)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient().reconnect(100 * MS, 2));
            sim.cut(0, true);
            assertTrue(sim.run(() -> c.state(0) == PathState.DEAD, 10_000 * MS), "DEAD after its attempts: " + c.statsSnapshot(0));
            assertEquals(2, c.stats(0).reconnectsFailed(), "the two attempts allowed, each failed");
            sim.cut(0, false);
            sim.run(() -> false, 2000 * MS);
            assertEquals(PathState.DEAD, c.state(0), "a dead path stays down");
            assertEquals(PathState.CONNECTED, c.state(1));
        }
    }
}
