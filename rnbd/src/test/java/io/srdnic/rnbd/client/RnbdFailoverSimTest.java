package io.srdnic.rnbd.client;

import static io.srdnic.rnbd.client.RnbdSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.Errno;
import io.srdnic.block.IoCompletion;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rnbd.server.ExportDirectory;
import io.srdnic.rtrs.client.PathState;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * RNBD over RTRS failover on the simulator: a path cut mid-IO loses and repeats nothing; with no
 * path left IO fails, and the devices come back with the session.
 */
class RnbdFailoverSimTest {
    static final int BLOCK = 4096;

    /** Numbered 4 KiB writes, block k holding pattern k, each completion counted. */
    static final class Writes {
        final RnbdDevice device;
        final int[] completions;
        final int[] errors;
        int submitted;
        int completed;

        Writes(RnbdDevice device, int total) {
            this.device = device;
            this.completions = new int[total];
            this.errors = new int[total];
        }

        static byte pattern(int k, int i) {
            return (byte) (k * 31 + i * 7 + 3);
        }

        void submitOne() {
            int k = submitted++;
            ByteBuffer b = ByteBuffer.allocate(BLOCK);
            for (int i = 0; i < BLOCK; i++) {
                b.put(i, pattern(k, i));
            }
            IoCompletion done = e -> {
                completions[k]++;
                errors[k] = e;
                completed++;
            };
            device.write((long) k * BLOCK, b, false, done);
        }

        boolean inFlightBelow(int n) {
            return submitted - completed < n;
        }
    }

    @Test
    void shouldFailOverWritesWhenAPathIsCutMidIoLosingOrRepeatingNone() throws Exception {
        int total = 2000;
        try (RnbdSim sim = new RnbdSim(31, 2, new ExportDirectory(null).memory("m", (long) total * BLOCK))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "m", Rnbd.ACCESS_RW);
            Writes w = new Writes(d, total);
            boolean cut = false;
            boolean restored = false;
            long last = 0;
            long end = sim.now() + 30_000 * MS;
            while (w.completed < total && sim.now() - end < 0) {
                // a write per virtual ms: the cut, the reconnect and its return land mid-run
                if (w.submitted < total && w.inFlightBelow(32) && sim.now() - last >= 1_000_000) {
                    w.submitOne();
                    last = sim.now();
                }
                sim.step();
                if (!cut && w.completed >= 200) {
                    sim.cut(0, true);
                    cut = true;
                }
                if (cut && !restored && c.rtrs().stats(0).reconnectsFailed() >= 1) {
                    sim.cut(0, false);
                    restored = true;
                }
            }
            assertTrue(restored, "the link came back during the run");
            assertEquals(total, w.completed, "every write ended");
            for (int k = 0; k < total; k++) {
                assertEquals(1, w.completions[k], "write " + k + " completed once");
                assertEquals(0, w.errors[k], "write " + k);
            }
            assertTrue(c.rtrs().stats(0).failovers() + c.rtrs().stats(1).failovers() > 0, "in-flight IO moved: " + c.rtrs()
                    .statsSnapshot(1));
            assertEquals(1, c.sessions(), "one path was always there: no new session, no reopen");
            assertTrue(sim.run(() -> c.rtrs().state(0) == PathState.CONNECTED, 5000 * MS), "path 0 reconnects");
            ByteBuffer back = ByteBuffer.allocate(total * BLOCK);
            Completion r = new Completion();
            d.read(0, back, r);
            assertTrue(sim.run(r::done, 5000 * MS));
            assertEquals(0, r.error);
            for (int k = 0; k < total; k++) {
                for (int i = 0; i < BLOCK; i += 511) {
                    assertEquals(Writes.pattern(k, i), back.get(k * BLOCK + i), "block " + k + " byte " + i);
                }
            }
        }
    }

    @Test
    void shouldFailIoWithAnErrnoWhenNoPathIsLeftAndReopenTheDeviceWhenOneReturns() throws Exception {
        try (RnbdSim sim = new RnbdSim(32, 2, new ExportDirectory(null).memory("m", 1 << 20))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "m", Rnbd.ACCESS_RW);
            Completion before = new Completion();
            d.write(0, ByteBuffer.wrap(new byte[BLOCK]).put(0, (byte) 42), false, before);
            assertTrue(sim.run(before::done, 1000 * MS));
            sim.cut(0, true);
            sim.cut(1, true);
            Completion lost = new Completion();
            d.write(BLOCK, ByteBuffer.allocate(BLOCK), false, lost); // in flight on paths that do not know yet
            assertTrue(sim.run(lost::done, 5000 * MS));
            assertEquals(Errno.EIO, lost.error, "no path left");
            assertTrue(sim.run(() -> !c.up(), 1000 * MS));
            Completion refused = new Completion();
            d.read(0, ByteBuffer.allocate(BLOCK), refused);
            assertTrue(sim.run(refused::done, 100 * MS), "fails at once without a path");
            assertEquals(Errno.EIO, refused.error);
            assertTrue(sim.run(() -> sim.server.connectedPaths() == 0, 2000 * MS), "the server lets the session go");
            sim.cut(1, false);
            assertTrue(sim.run(() -> c.up() && d.state() == DeviceState.OPEN, 5000 * MS), "session and device back: " + d.state());
            assertEquals(2, c.sessions(), "SESS_INFO again");
            assertEquals(2, d.opens(), "the device was opened again");
            assertEquals(1, sim.rnbd.openDevices("gw"));
            ByteBuffer back = ByteBuffer.allocate(BLOCK);
            Completion r = new Completion();
            d.read(0, back, r);
            assertTrue(sim.run(r::done, 1000 * MS));
            assertEquals(0, r.error);
            assertEquals(42, back.get(0), "the memory device kept its data");
        }
    }
}
