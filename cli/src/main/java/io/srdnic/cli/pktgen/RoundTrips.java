package io.srdnic.cli.pktgen;

import org.HdrHistogram.Histogram;

/**
 * The bookkeeping of a one-at-a-time ping-pong, raw or over a transport: which round trips warm
 * up (at least the asked number, and more while the time floor has not passed), when the one out
 * left, and the measured round trips in an HdrHistogram. Round trips are numbered from 0.
 */
public final class RoundTrips {
    private final long warmupNanos;
    private final Histogram histogram = LatencySummary.newHistogram();
    private long warmup;
    private long total;
    private long startedAt;
    private long sentAt;
    private long firstMeasuredAt;
    private long lastBackAt;

    /**
     * @param warmup      round trips made before measuring (JIT, caches, the peer's first frames)
     * @param warmupNanos and at least this long: more round trips are warm-up until it has passed
     */
    public RoundTrips(long iterations, long warmup, long warmupNanos) {
        this.warmup = warmup;
        this.total = warmup + iterations;
        this.warmupNanos = warmupNanos;
    }

    /** Round trip {@code n} is about to leave at {@code now}: while the time floor has not passed, it warms up too. */
    public void starting(long n, long now) {
        if (n == 0) {
            startedAt = now;
        }
        if (n == warmup && now - startedAt < warmupNanos) {
            warmup++;
            total++;
        }
    }

    /** Round trip {@code n} left at {@code now} (the time {@link #starting} was given). */
    public void sent(long n, long now) {
        sentAt = now;
        if (n == warmup) {
            firstMeasuredAt = now;
        }
    }

    /** Round trip {@code n} came back at {@code now}: recorded unless it warmed up. */
    public void returned(long n, long now) {
        if (measured(n)) {
            LatencySummary.record(histogram, now - sentAt);
            lastBackAt = now;
        }
    }

    public boolean measured(long n) {
        return n >= warmup;
    }

    /** When the round trip out left. */
    public long sentAt() {
        return sentAt;
    }

    /** Round trips made before measuring: at least the asked number, more when the time floor asked for more. */
    public long warmup() {
        return warmup;
    }

    /** Round trips the run will make, warm-up included (a timed warm-up adds to it as it goes). */
    public long total() {
        return total;
    }

    public LatencySummary summary(long lost) {
        return LatencySummary.of(histogram, lost, lastBackAt - firstMeasuredAt, firstMeasuredAt - startedAt);
    }
}
