package io.srdnic.cli.rnbd;

import io.srdnic.rtrs.client.IoCallback;
import io.srdnic.rtrs.client.Permit;
import io.srdnic.rtrs.client.RtrsClient;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.HdrHistogram.Histogram;

/**
 * One RTRS benchmark run: {@code depth} IOs of {@code size} bytes kept in flight for a time, each
 * IO's latency (submit to callback) recorded. The server answers at once (no device), so this is
 * RTRS and the link alone. Allocates nothing per IO.
 */
final class RtrsBench implements IoCallback {
    private final RtrsClient client;
    private final MemorySegment header = Arena.ofAuto().allocate(8);
    private final long[] startedAt;
    final Histogram latency = new Histogram(3_600_000_000_000L, 3);
    private boolean read;
    private int size;
    private int inFlight;
    private int errors;
    long ios;

    RtrsBench(RtrsClient client) {
        this.client = client;
        this.startedAt = new long[client.queueDepth()];
    }

    /** Runs {@code depth} x {@code size}-byte reads or writes for {@code nanos}; returns IOs done (latency holds each one's). */
    long run(boolean isRead, int bytes, int depth, long nanos) {
        read = isRead;
        size = bytes;
        latency.reset();
        ios = 0;
        errors = 0;
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            while (inFlight < depth && submit()) {
                inFlight++;
            }
            client.poll();
        }
        while (inFlight > 0) {
            client.poll();
        }
        if (errors > 0) {
            throw new IllegalStateException(errors + " IOs failed");
        }
        return ios;
    }

    private boolean submit() {
        Permit p = client.permit();
        if (p == null) {
            return false;
        }
        startedAt[p.id()] = System.nanoTime();
        int rc = read ? client.read(p, header, 0, 8, size, this) : client.write(p, header, 0, 8, size, this);
        if (rc != 0) {
            client.release(p);
            throw new IllegalStateException("submit: errno " + rc);
        }
        return true;
    }

    @Override
    public void done(Permit p, int errno) {
        latency.recordValue(System.nanoTime() - startedAt[p.id()]);
        inFlight--;
        ios++;
        if (errno != 0) {
            errors++;
        }
        client.release(p);
    }
}
