package io.srdnic.verbs;

import io.srdnic.srd.counters.CountersLayout;
import io.srdnic.srd.counters.CountersWriter;
import io.srdnic.srd.counters.DutyCycleCounters;
import io.srdnic.srd.transport.device.TransportCounters;
import io.srdnic.srd.transport.device.TransportDevice;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An embedded dataplane's counters file (ContextConfig.countersDir): each duty cycle is counted
 * (a few arithmetic operations), and every {@code interval} on the dataplane's clock the
 * transport's own counts are copied into the file — the copy, not the packet path, pays for
 * publishing them. Owned by the dataplane's thread, as the transport is.
 */
final class DataplaneCounters {
    private static final AtomicInteger FILES = new AtomicInteger();

    private final CountersWriter writer;
    private final TransportCounters transport;
    private final DutyCycleCounters loop;
    private final PostRing posts;
    private final int postBacklogId;
    /** Receives dropped because a modify to RESET ran between the application's post and this thread's taking it. */
    private final int racedPostsId;
    private final long interval;
    private long lastExport;

    private DataplaneCounters(CountersWriter writer, TransportDevice transport, String scope, PostRing posts, long interval, long now) {
        this.writer = writer;
        this.transport = new TransportCounters(transport, writer, scope);
        this.loop = new DutyCycleCounters(writer, scope);
        this.posts = posts;
        this.postBacklogId = posts == null ? -1 : writer.allocate(CountersLayout.GAUGE, scope + " post_ring_backlog_max", posts.capacity());
        this.racedPostsId = posts == null ? -1 : writer.allocate(CountersLayout.COUNTER, scope + " " + RACED_POSTS, 0);
        this.interval = interval;
        this.lastExport = now;
    }

    /** How a dataplane opens its counters once its transport exists (on the dataplane's thread). */
    @FunctionalInterface
    interface Opener {
        DataplaneCounters open(TransportDevice transport, PostRing posts, long now);
    }

    /** Opens nothing: a context without a counters directory. */
    static final Opener NONE = (transport, posts, now) -> null;

    /** The opener of a context's file, or {@link #NONE} when its config names no counters directory. */
    static Opener opener(ContextConfig config, String device) {
        if (config.countersDir == null) {
            return NONE;
        }
        return (transport, posts, now) -> open(config.countersDir, config.countersCapacity, config.countersIntervalNanos, device, transport,
            posts, now);
    }

    /** The counters file for a context on {@code device} in {@code dir}: {@code <pid>-<n>-<device>.counters}. */
    static DataplaneCounters open(Path dir, int capacity, long interval, String device, TransportDevice transport, PostRing posts,
            long now) {
        String name = device.replaceAll("[^A-Za-z0-9_.-]", "_");
        name = name.length() > 40 ? name.substring(0, 40) : name;
        long pid = ProcessHandle.current().pid();
        Path file = dir.resolve(pid + "-" + FILES.incrementAndGet() + "-" + name + CountersLayout.FILE_SUFFIX);
        CountersWriter writer = CountersWriter.create(file, "embedded context " + name, capacity);
        return new DataplaneCounters(writer, transport, "device=" + name, posts, interval, now);
    }

    /** The name of the count of receives a modify to RESET raced (DEDICATED contexts: those with a post ring). */
    static final String RACED_POSTS = "recv_posts_raced_reset";

    /** The driver has dropped {@code total} receives so far for a modify to RESET that raced their post. */
    void racedPosts(long total) {
        writer.set(racedPostsId, total);
    }

    Path file() {
        return writer.file();
    }

    /** A duty cycle started at {@code now} did {@code work}; the counts go out when the interval is up. */
    void onCycle(long now, int work) {
        loop.onCycle(now, work);
        if (now - lastExport >= interval) {
            export(now);
        }
    }

    private void export(long now) {
        lastExport = now;
        transport.export();
        loop.export(now);
        if (posts != null) {
            writer.set(postBacklogId, posts.takeMaxBacklog());
        }
        writer.heartbeat(System.currentTimeMillis());
    }

    /**
     * The final counts, then the file is marked closed; on the dataplane's thread, after the
     * transport closed (its tables stay readable).
     */
    void close(long now) {
        export(now);
        writer.close();
    }
}
