package io.srdnic.dataplane.attach;

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
        "malformed_messages", "ring_corruptions", "work_requests_refused", "clients_closed", "connections_refused", "open_timeouts",
        "clients_fenced", "quota_refusals", "total_quota_refusals"};
    static final String SCOPE = "dataplane=attach";
    /**
     * Per client ({@code dataplane=attach client=<id> ...}), in {@link ClientSession#ringOccupancy}'s
     * order: records in its send, receive and completion rings when the dataplane last looked
     * (gauges), and the most seen at once (high-water marks, which only grow).
     */
    static final String[] CLIENT_NAMES = {"send_ring_fill", "send_ring_high_water", "recv_ring_fill", "recv_ring_high_water",
        "completion_ring_fill", "completion_ring_high_water"};
    /**
     * The server's counters and 6 per client for this many clients at once; more clients go
     * uncounted (the file says how many were refused).
     */
    static final int CAPACITY = 2048;

    private final CountersWriter writer;
    private final int[] ids = new int[NAMES.length];
    private final long[] values = new long[NAMES.length];
    private final long[] clientValues = new long[CLIENT_NAMES.length];
    private long lastExport;
    /** {@link #SCOPE}, with {@code lcore=k} for a server of lcore k > 0. */
    private final String scope;

    /**
     * The file of lcore {@code lcore}'s server: lcore 0's is the one a single-lcore dataplane has;
     * others add {@code -lcore<k>} and {@code lcore=k}.
     */
    AttachCounters(Path dir, int lcore) {
        String tag = lcore == 0 ? "" : "-lcore" + lcore;
        scope = lcore == 0 ? SCOPE : SCOPE + ",lcore=" + lcore;
        writer = CountersWriter.create(dir.resolve(ProcessHandle.current().pid() + "-attach" + tag + CountersLayout.FILE_SUFFIX),
            "srdnic dataplane attach server" + (lcore == 0 ? "" : " of lcore " + lcore), CAPACITY);
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
        server.exportClients(this);
        writer.heartbeat(System.currentTimeMillis());
    }

    /** The counters of client {@code id}'s rings (their ids in the file, -1 where it was full). */
    int[] addClient(long id) {
        int[] made = new int[CLIENT_NAMES.length];
        for (int i = 0; i < made.length; i++) {
            made[i] = writer.allocate(i % 2 == 0 ? CountersLayout.GAUGE : CountersLayout.COUNTER,
                scope + " client=" + id + " " + CLIENT_NAMES[i], id);
        }
        return made;
    }

    /** The client is gone: its counters' records are freed. */
    void removeClient(int[] counters) {
        for (int c : counters) {
            writer.free(c);
        }
    }

    /** Copies one client's ring occupancy into its counters. */
    void exportClient(ClientSession session, int[] counters) {
        session.ringOccupancy(clientValues);
        for (int i = 0; i < counters.length; i++) {
            writer.set(counters[i], clientValues[i]);
        }
    }

    Path file() {
        return writer.file();
    }

    @Override
    public void close() {
        writer.close();
    }
}
