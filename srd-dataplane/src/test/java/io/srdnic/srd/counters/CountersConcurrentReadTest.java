package io.srdnic.srd.counters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader against a file mid-update: one thread stores, allocates and frees as fast as it can
 * while another reads. Every value read is one the writer stored (never torn), each counter only
 * grows from one read to the next, and a label is never paired with another counter's value.
 */
class CountersConcurrentReadTest {
    @TempDir
    Path dir;

    @Test
    void shouldReadOnlyConsistentRecordsWhileTheWriterRuns() throws Exception {
        Path file = dir.resolve("busy.counters");
        int steady = 32;
        AtomicBoolean stop = new AtomicBoolean();
        try (CountersWriter w = CountersWriter.create(file, "busy", 256); CountersReader r = CountersReader.open(file).orElseThrow()) {
            int[] ids = new int[steady];
            for (int i = 0; i < steady; i++) {
                ids[i] = w.allocate(CountersLayout.COUNTER, "k=" + i + " steady", i);
            }
            Thread writer = new Thread(() -> {
                long v = 0;
                int churn = -1;
                while (!stop.get()) {
                    v++;
                    // Both halves of the long change together: a torn read shows as halves that differ.
                    long value = v << 32 | v;
                    for (int id : ids) {
                        w.set(id, value);
                    }
                    if ((v & 0xFF) == 0) {
                        w.free(churn);
                        churn = w.allocate(CountersLayout.GAUGE, "k=churn" + (v >>> 8) + " churning", -(v >>> 8));
                        w.set(churn, -(v >>> 8));
                    }
                }
            });
            writer.start();
            Map<String, Long> last = new HashMap<>();
            long deadline = System.nanoTime() + 1_000_000_000L;
            int reads = 0;
            while (System.nanoTime() < deadline) {
                List<Counter> cs = r.counters();
                for (Counter c : cs) {
                    if (c.name().equals("steady")) {
                        long v = c.value();
                        assertEquals(v >>> 32, v & 0xFFFF_FFFFL, "torn value " + Long.toHexString(v));
                        assertEquals(c.key(), Long.parseLong(c.scope().substring(2)), "label and key of one record");
                        Long before = last.put(c.label(), v);
                        assertTrue(before == null || v >= before, c.label() + " went back from " + before + " to " + v);
                    } else {
                        assertEquals("churning", c.name());
                        // Its value is 0 (just allocated) or the one stored with this label: never another counter's.
                        assertTrue(c.value() == 0 || c.value() == c.key(), c + " carries another counter's value");
                    }
                }
                reads++;
            }
            stop.set(true);
            writer.join();
            assertTrue(reads > 100, "the reader ran: " + reads);
            assertEquals(steady, r.counters().stream().filter(c -> c.name().equals("steady")).count());
        }
    }
}
