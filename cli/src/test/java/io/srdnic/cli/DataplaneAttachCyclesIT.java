package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attach/detach cycles against a real running {@code srdnic dataplane} (its own JVM, a memif port,
 * clients' memory as sealed memfds passed by descriptor): each cycle attaches a context with the
 * default pool and rings (80 MiB, allocated in full at attach), makes a PD, a CQ, an SRD QP and an
 * MR, and closes. Over the cycles the dataplane's mappings of client memory (count and bytes, from
 * /proc/PID/maps) and its open descriptors (/proc/PID/fd) must come back to exactly what they were
 * after the warm-up, and its RSS may not grow by more than {@link #RSS_SLACK_KIB} (the JIT's code
 * cache still grows a little; 32 KiB of direct buffers left per client to the GC grew it by 10 MiB
 * per 300 cycles before they were freed at drop). {@code -Dsrdnic.attach.cycles=1000} (what
 * {@code scripts/attach-cycles} runs) for the long proof; 100 by default.
 */
class DataplaneAttachCyclesIT {
    private static final int WARMUP = 100;
    private static final long RSS_SLACK_KIB = 16 << 10;

    /** What the dataplane holds at one moment. */
    record Sample(long rssKib, long shmMappings, long shmBytes, long fds) {
        static Sample of(long pid) throws IOException {
            long rss = 0;
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith("VmRSS:")) {
                    rss = Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
            long count = 0;
            long bytes = 0;
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
                if (l.contains("/memfd:srdnic-") || l.contains("/dev/shm/srdnic-")) {
                    String[] range = l.substring(0, l.indexOf(' ')).split("-");
                    count++;
                    bytes += Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16);
                }
            }
            long fds;
            try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
                fds = s.count();
            }
            return new Sample(rss, count, bytes, fds);
        }

        @Override
        public String toString() {
            return "rss " + rssKib + " KiB, client-memory mappings " + shmMappings + " (" + shmBytes + " bytes), fds " + fds;
        }
    }

    @Test
    void shouldHoldRssMappingsAndDescriptorsFlatOverAttachDetachCycles(@TempDir Path tmp) throws Exception {
        int cycles = Integer.getInteger("srdnic.attach.cycles", 100);
        Path dir = tmp.resolve("run");
        // a young generation small enough that the warm-up has touched all of it: what RSS shows after is growth, not eden filling
        try (DataplaneFilesIT.Plane plane = DataplaneFilesIT.Plane.startWith(List.of("-Xmn16m"), "022", tmp.resolve("log"), "--port",
            "net_memif0,role=server", "--dir", dir.toString())) {
            plane.awaitReady();
            for (int i = 0; i < WARMUP; i++) {
                cycle(dir);
            }
            Sample base = settled(plane.pid(), null);
            System.out.println("after " + WARMUP + " warm-up cycles: " + base);
            Sample peak = base;
            for (int i = 1; i <= cycles; i++) {
                cycle(dir);
                if (i % Math.max(1, cycles / 10) == 0) {
                    Sample s = Sample.of(plane.pid());
                    peak = s.rssKib() > peak.rssKib() ? s : peak;
                    System.out.println("after " + i + " cycles: " + s);
                }
            }
            Sample end = settled(plane.pid(), base);
            System.out.println("after " + cycles + " cycles, settled: " + end + " (peak rss " + peak.rssKib() + " KiB)");
            assertEquals(base.shmMappings(), end.shmMappings(), "client-memory mappings: " + base + " -> " + end + "\n" + plane.log());
            assertEquals(base.shmBytes(), end.shmBytes(), "client-memory bytes mapped: " + base + " -> " + end);
            assertEquals(base.fds(), end.fds(), "descriptors: " + base + " -> " + end);
            assertTrue(end.rssKib() - base.rssKib() <= RSS_SLACK_KIB, "rss grew: " + base + " -> " + end);
            assertTrue(plane.process().isAlive(), plane.log());
            // ids as they are, without digit grouping (MessageFormat printed "pid 23,379")
            String log = plane.log();
            assertTrue(log.contains("dataplane pid " + plane.pid() + " running"), log);
            assertTrue(log.contains("pid " + ProcessHandle.current().pid() + " as it says"), log);
            // SIGTERM: the last lines (the lcore's stop, after the JVM's shutdown began) are in the log
            plane.process().destroy();
            assertEquals(143, plane.exitStatus(30), plane.log()); // the documented status after SIGTERM
            assertTrue(plane.log().contains("lcore 0 stopped"), "the log after SIGTERM:\n" + plane.log());
        }
    }

    /** One attach, a few objects (each reclaimed or destroyed), one detach. */
    private static void cycle(Path dir) {
        try (Context ctx = Context.open(Device.attached(dir))) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(64);
            pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(16).maxRecvWr(16).build());
            pd.allocateRegion(1 << 20, Access.LOCAL_WRITE);
        }
    }

    /**
     * A sample once the last detach is reclaimed (the dataplane does it on its next pass): no client
     * memory mapped, and the descriptors back to {@code like}'s (a res-file rewrite holds one for a moment).
     */
    private static Sample settled(long pid, Sample like) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        Sample s = Sample.of(pid);
        while ((s.shmMappings() != 0 || (like != null && s.fds() != like.fds())) && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
            s = Sample.of(pid);
        }
        return s;
    }
}
