package io.srdnic.verbs.attach;

import io.srdnic.srd.counters.CountersLayout;
import io.srdnic.srd.counters.CountersWriter;
import java.nio.file.Path;

/**
 * The attach side's counts in a counters file of the dataplane's directory, beside its ports'
 * ({@code <pid>-attach.counters}, scope {@code dataplane=attach}), so that {@code srdnic stat}
 * shows clients attached, refused and reclaimed, and what was reclaimed. Copied from the server's
 * plain fields at most every {@link #INTERVAL_NANOS} on the dataplane's thread, as the transport's are.
 */
final class AttachCounters implements AutoCloseable {
    static final long INTERVAL_NANOS = 10_000_000L;
    /** In the order {@link AttachServer#fillCounters} fills them. */
    static final String[] NAMES = {"clients", "clients_attached", "clients_refused", "clients_reclaimed", "objects_reclaimed",
        "malformed_messages", "ring_corruptions", "work_requests_refused", "clients_closed"};
    static final String SCOPE = "dataplane=attach";

    private final CountersWriter writer;
    private final int[] ids = new int[NAMES.length];
    private final long[] values = new long[NAMES.length];
    private long lastExport;

    /** The file of lcore {@code lcore}'s server: lcore 0's is the one a single-lcore dataplane has; others add {@code -lcore<k>} and {@code lcore=k}. */
    AttachCounters(Path dir, int lcore) {
        String tag = lcore == 0 ? "" : "-lcore" + lcore;
        String scope = lcore == 0 ? SCOPE : SCOPE + ",lcore=" + lcore;
        writer = CountersWriter.create(dir.resolve(ProcessHandle.current().pid() + "-attach" + tag + CountersLayout.FILE_SUFFIX),
            "srdnic dataplane attach server" + (lcore == 0 ? "" : " of lcore " + lcore), 64);
        for (int i = 0; i < NAMES.length; i++) {
            ids[i] = writer.allocate(i == 0 ? CountersLayout.GAUGE : CountersLayout.COUNTER, scope + " " + NAMES[i], i);
        }
    }

    /** Copies the server's counts into the file if the interval is up (or {@code now} is forced). */
    void maybeExport(AttachServer server, long now, boolean force) {
        if (!force && now - lastExport < INTERVAL_NANOS) {
            return;
        }
        lastExport = now;
        server.fillCounters(values);
        for (int i = 0; i < ids.length; i++) {
            writer.set(ids[i], values[i]);
        }
        writer.heartbeat(System.currentTimeMillis());
    }

    Path file() {
        return writer.file();
    }

    @Override
    public void close() {
        writer.close();
    }
}
