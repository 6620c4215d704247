package io.srdnic.cli.pktgen;

/** A progress line on stderr, at most every two seconds, for runs long enough to need one. */
public final class Progress {
    private static final long EVERY_NANOS = 2_000_000_000L;
    private final String label;
    private final long total;
    private final long start = System.nanoTime();
    private long lastPrint = start;

    public Progress(String label, long total) {
        this.label = label;
        this.total = total;
    }

    /** Call now and then (say every thousand steps): prints when two seconds have passed since the last line. */
    public void update(long done) {
        update(done, total);
    }

    /** As {@link #update(long)}, when the total has changed since (a warm-up that lasts until a time). */
    public void update(long done, long total) {
        long now = System.nanoTime();
        if (now - lastPrint >= EVERY_NANOS) {
            lastPrint = now;
            System.err.printf("%s: %d/%d (%.0f%%) after %.1f s%n", label, done, total, 100.0 * done / Math.max(1, total),
                    (now - start) / 1e9);
        }
    }
}
