package io.srdnic.srd.counters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A counters file written by {@link CountersWriter} and read back by {@link CountersReader}. */
class CountersFileTest {
    @TempDir
    Path dir;

    @Test
    void shouldReadBackEveryFieldOfACounter() {
        Path file = dir.resolve("a.counters");
        try (CountersWriter w = CountersWriter.create(file, "test writer", 64)) {
            int tx = w.allocate(CountersLayout.COUNTER, "device=d1 tx_data", 0);
            int rtt = w.allocate(CountersLayout.GAUGE, "device=d1,peer=10.0.0.2:4791 peer_srtt_ns", 7);
            w.set(tx, 12345);
            w.set(rtt, 42_000);
            try (CountersReader r = CountersReader.open(file).orElseThrow()) {
                assertEquals(ProcessHandle.current().pid(), r.pid());
                assertEquals("test writer", r.writerName());
                assertEquals("live", r.status());
                List<Counter> cs = r.counters();
                assertEquals(List.of(new Counter(tx, CountersLayout.COUNTER, 0, "device=d1 tx_data", 12345),
                    new Counter(rtt, CountersLayout.GAUGE, 7, "device=d1,peer=10.0.0.2:4791 peer_srtt_ns", 42_000)), cs);
                assertEquals("device=d1,peer=10.0.0.2:4791", cs.get(1).scope());
                assertEquals("peer_srtt_ns", cs.get(1).name());
                w.set(tx, 12346);
                assertEquals(12346, r.counters().get(0).value(), "the reader sees the writer's stores live");
            }
        }
    }

    @Test
    void shouldKeepTheFinalValuesAfterCloseMarkedClosed() {
        Path file = dir.resolve("b.counters");
        CountersWriter w = CountersWriter.create(file, "w", 8);
        w.set(w.allocate(CountersLayout.COUNTER, "x", 0), 99);
        w.close();
        try (CountersReader r = CountersReader.open(file).orElseThrow()) {
            assertEquals("closed", r.status());
            assertEquals(99, r.counters().get(0).value());
        }
    }

    @Test
    void shouldShowAWriterThatDiedAsStale() throws IOException {
        Path file = dir.resolve("c.counters");
        try (CountersWriter w = CountersWriter.create(file, "w", 8)) {
            w.allocate(CountersLayout.COUNTER, "x", 0);
        }
        // What a writer killed with -9 leaves: its state still LIVE, its pid gone.
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(CountersLayout.WRITER_STATE_OFFSET);
            raf.write(le(CountersLayout.WRITER_LIVE, 4));
            raf.seek(CountersLayout.PID_OFFSET);
            raf.write(le(Integer.MAX_VALUE - 1, 8)); // above pid_max: no such process
        }
        try (CountersReader r = CountersReader.open(file).orElseThrow()) {
            assertFalse(r.writerRunning());
            assertEquals("stale", r.status());
            assertEquals(1, r.counters().size(), "its last values are still there to read");
        }
    }

    @Test
    void shouldLeaveOutFreedCounters() {
        Path file = dir.resolve("d.counters");
        try (CountersWriter w = CountersWriter.create(file, "w", 8); CountersReader r = CountersReader.open(file).orElseThrow()) {
            int a = w.allocate(CountersLayout.COUNTER, "a", 0);
            w.allocate(CountersLayout.COUNTER, "b", 0);
            w.free(a);
            assertEquals(List.of("b"), r.counters().stream().map(Counter::label).toList());
        }
    }

    @Test
    void shouldReuseAFreedCountersRecordOnlyLater() {
        Path file = dir.resolve("d2.counters");
        try (CountersWriter w = CountersWriter.create(file, "w", 8)) {
            int a = w.allocate(CountersLayout.COUNTER, "a", 0);
            int b = w.allocate(CountersLayout.COUNTER, "b", 0);
            w.free(a);
            int c = w.allocate(CountersLayout.COUNTER, "c", 0);
            assertTrue(c != a && c != b, "a freed record waits before it is reused: a reader may hold its label");
        }
    }

    @Test
    void shouldRefuseCountersBeyondCapacityIgnoringTheirStores() {
        Path file = dir.resolve("e.counters");
        try (CountersWriter w = CountersWriter.create(file, "w", 2); CountersReader r = CountersReader.open(file).orElseThrow()) {
            w.allocate(CountersLayout.COUNTER, "a", 0);
            w.allocate(CountersLayout.COUNTER, "b", 0);
            int none = w.allocate(CountersLayout.COUNTER, "c", 0);
            assertEquals(-1, none);
            w.set(none, 5);
            assertEquals(1, r.refused());
            assertEquals(2, r.counters().size());
        }
    }

    @Test
    void shouldRejectALabelTooLongForItsRecord() {
        try (CountersWriter w = CountersWriter.create(dir.resolve("f.counters"), "w", 2)) {
            assertThrows(IllegalArgumentException.class, () -> w.allocate(CountersLayout.COUNTER,
                    "x".repeat(CountersLayout.LABEL_MAX + 1), 0));
        }
    }

    @Test
    void shouldNotOpenWhatIsNotACompleteCountersFile() throws IOException {
        assertTrue(CountersReader.open(dir.resolve("missing.counters")).isEmpty());
        Path junk = Files.write(dir.resolve("junk.counters"), new byte[4096]);
        assertTrue(CountersReader.open(junk).isEmpty(), "no magic: not one of ours, or a writer still making it");
        Path file = dir.resolve("short.counters");
        CountersWriter.create(file, "w", 1024).close();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(CountersLayout.HEADER_LENGTH + 10);
        }
        assertTrue(CountersReader.open(file).isEmpty(), "shorter than its header says");
    }

    @Test
    void shouldGoOnReadingAfterTheFileIsDeletedOrReplaced() throws IOException {
        Path file = dir.resolve("g.counters");
        try (CountersWriter w = CountersWriter.create(file, "first", 8); CountersReader r = CountersReader.open(file).orElseThrow()) {
            int x = w.allocate(CountersLayout.COUNTER, "x", 0);
            try (CountersWriter replacement = CountersWriter.create(file, "second", 8)) {
                w.set(x, 3);
                assertEquals(Map.of("x", 3L), r.counters().stream().collect(Collectors.toMap(Counter::label, Counter::value)),
                    "the reader's mapping is the first writer's file, whole");
                assertEquals("second", CountersReader.open(file).orElseThrow().writerName());
            }
            Files.delete(file);
            w.set(x, 4);
            assertEquals(4, r.counters().get(0).value());
        }
    }

    private static byte[] le(long v, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        assertEquals(ByteOrder.LITTLE_ENDIAN, ByteOrder.nativeOrder());
        return b;
    }
}
