package io.srdnic.cli.stat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.cli.Json;
import io.srdnic.srd.counters.CountersLayout;
import io.srdnic.srd.counters.CountersWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What srdnic stat shows of a directory: each file's writer and state, its counters, filtered. */
class StatViewTest {
    @TempDir
    Path dir;

    @Test
    void shouldShowEachFileWithItsStateAndFilteredCounters() {
        try (CountersWriter live = CountersWriter.create(dir.resolve("1-1-a.counters"), "embedded context a", 8)) {
            live.set(live.allocate(CountersLayout.COUNTER, "device=a tx_data", 0), 7);
            live.set(live.allocate(CountersLayout.COUNTER, "device=a rx_data", 0), 9);
            CountersWriter closed = CountersWriter.create(dir.resolve("1-2-b.counters"), "embedded context b", 8);
            closed.set(closed.allocate(CountersLayout.COUNTER, "device=b tx_data", 0), 3);
            closed.close();
            CountersDirectory counters = new CountersDirectory(dir, Pattern.compile("tx_"));
            String text = StatView.text(counters, counters.read(), Instant.EPOCH);
            assertTrue(text.contains("1-1-a.counters: embedded context a, pid " + ProcessHandle.current().pid() + ", live"), text);
            assertTrue(text.contains("1-2-b.counters: embedded context b, pid " + ProcessHandle.current().pid() + ", closed"), text);
            assertTrue(text.contains("                   7  device=a tx_data"), text);
            assertTrue(!text.contains("rx_data"), "--filter tx_ leaves rx_data out: " + text);
            String json = Json.object(StatView.json(counters, counters.read()));
            assertTrue(json.contains("\"1-1-a.counters\":{\"pid\":" + ProcessHandle.current().pid()
                    + ",\"writer\":\"embedded context a\",\"status\":\"live\""),
                json);
            assertTrue(json.contains("\"counters\":{\"device=b tx_data\":3}"), json);
        }
    }

    @Test
    void shouldSkipTheFilesOfWritersThatAreGoneUnlessAskedForAll() throws Exception {
        try (CountersWriter live = CountersWriter.create(dir.resolve("1-1-a.counters"), "embedded context a", 8)) {
            live.set(live.allocate(CountersLayout.COUNTER, "device=a tx_data", 0), 7);
            Path dead = dir.resolve("2-1-b.counters");
            CountersWriter.create(dead, "embedded context b", 8).allocate(CountersLayout.COUNTER, "device=b tx_data", 0);
            // As a writer killed with -9 leaves it: marked live, its pid gone.
            long gone = deadPid();
            try (FileChannel ch = FileChannel.open(dead, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, gone), CountersLayout.PID_OFFSET);
            }
            CountersDirectory running = new CountersDirectory(dir, null);
            String text = StatView.text(running, running.read(), Instant.EPOCH);
            assertTrue(text.contains("1-1-a.counters") && !text.contains("2-1-b.counters"), "a dead writer's file is skipped: " + text);
            CountersDirectory all = new CountersDirectory(dir, null, true);
            text = StatView.text(all, all.read(), Instant.EPOCH);
            assertTrue(text.contains("2-1-b.counters: embedded context b, pid " + gone + ", STALE"), "--all shows it: " + text);
        }
    }

    private static long deadPid() {
        for (long p = 4_000_000; p > 300_000; p -= 7919) {
            if (ProcessHandle.of(p).isEmpty()) {
                return p;
            }
        }
        throw new IllegalStateException("no free pid found");
    }

    @Test
    void shouldSayWhenThereIsNothingToShow() {
        CountersDirectory none = new CountersDirectory(dir.resolve("missing"), null);
        assertEquals(0, none.read().size());
        assertTrue(StatView.text(none, none.read(), Instant.EPOCH).contains("no such directory"));
    }
}
