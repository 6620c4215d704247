package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.counters.Counter;
import io.srdnic.srd.counters.CountersReader;
import io.srdnic.verbs.AttachedSrdTest.App;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The attach side's counts in a live counters file, as {@code srdnic stat} reads it. */
class AttachCountersTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    @Test
    void shouldPublishClientsAndWhatWasReclaimedInTheCountersFile() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 4)) {
            Path file = w.onLoop(() -> w.server.publishCounters(dir));
            assertEquals(1, read(file).get("dataplane=attach clients"), "a attached");
            App b = new App(dir, 1, 4);
            b.ctx.session().dieForTest();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            Map<String, Long> seen = read(file);
            // The file is written counter by counter, without a lock: one read can see an export half
            // done (clients_reclaimed already 1, clients still 2), so wait for the whole of the state.
            while ((seen.getOrDefault("dataplane=attach clients_reclaimed", 0L) < 1
                    || seen.getOrDefault("dataplane=attach clients", 0L) != 1
                || seen.getOrDefault("dataplane=attach objects_reclaimed", 0L) < 4) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                seen = read(file);
            }
            assertEquals(1, seen.get("dataplane=attach clients_reclaimed"), seen.toString());
            assertEquals(4, seen.get("dataplane=attach objects_reclaimed"), "its QP, CQ, MR and PD");
            assertEquals(2, seen.get("dataplane=attach clients_attached"));
            assertEquals(1, seen.get("dataplane=attach clients"), "a is still there");
            assertEquals(0, seen.get("dataplane=attach clients_closed"), "b died: it closed nothing");
            App c = new App(dir, 0, 0);
            c.close(); // in order: closed, not reclaimed
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (read(file).get("dataplane=attach clients_closed") < 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            seen = read(file);
            assertEquals(1, seen.get("dataplane=attach clients_closed"), seen.toString());
            assertEquals(1, seen.get("dataplane=attach clients_reclaimed"), "still only b");
        }
    }

    @Test
    void shouldPublishEachClientsRingOccupancyAndItsHighWaterMarks() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 4);
             App b = new App(dir, 1, 8)) {
            Path file = w.onLoop(() -> w.server.publishCounters(dir));
            String bScope = "dataplane=attach client=2 ";
            AddressHandle toB = a.to(b);
            for (int i = 0; i < 3; i++) {
                assertEquals(0, a.send(toB, b, i, "m" + i));
            }
            // b does not poll: its three receive completions stay in its completion ring
            Map<String, Long> seen = awaitValue(file, bScope + "completion_ring_fill", 3);
            assertEquals(3, seen.get(bScope + "completion_ring_high_water"), seen.toString());
            assertTrue(seen.get("dataplane=attach client=1 send_ring_high_water") >= 1, "a's sends waited in its ring: " + seen);
            assertTrue(seen.get(bScope + "recv_ring_high_water") >= 1, "b's receives waited in its ring: " + seen);
            assertEquals(0, seen.get(bScope + "send_ring_fill"), "b sent nothing");
            assertEquals(3, b.cq.poll(b.wcs));
            seen = awaitValue(file, bScope + "completion_ring_fill", 0);
            assertEquals(3, seen.get(bScope + "completion_ring_high_water"), "the mark stays: " + seen);
            b.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (read(file).containsKey(bScope + "completion_ring_fill") && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(!read(file).containsKey(bScope + "completion_ring_fill"), "a client's counters go with it");
        }
    }

    /** The file's counters once {@code label} reads {@code value} (within 5 s). */
    private static Map<String, Long> awaitValue(Path file, String label, long value) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Map<String, Long> seen = read(file);
        while (!Long.valueOf(value).equals(seen.get(label)) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            seen = read(file);
        }
        assertEquals(value, seen.get(label), seen.toString());
        return seen;
    }

    private static Map<String, Long> read(Path file) {
        try (CountersReader r = CountersReader.open(file).orElseThrow()) {
            Map<String, Long> m = new HashMap<>();
            for (Counter c : r.counters()) {
                m.put(c.label(), c.value());
            }
            assertTrue(r.writerRunning());
            return m;
        }
    }
}
