package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.counters.Counter;
import io.srdnic.srd.counters.CountersReader;
import io.srdnic.verbs.AttachedSrdTest.App;
import io.srdnic.verbs.attach.AllowRule;
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
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.sameUserOrRoot(dir)); App a = new App(dir, 0, 4)) {
            Path file = w.onLoop(() -> w.server.publishCounters(dir));
            assertEquals(1, read(file).get("dataplane=attach clients"), "a attached");
            App b = new App(dir, 1, 4);
            b.ctx.session.dieForTest();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            Map<String, Long> seen = read(file);
            while (seen.getOrDefault("dataplane=attach clients_reclaimed", 0L) < 1 && System.nanoTime() < deadline) {
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
