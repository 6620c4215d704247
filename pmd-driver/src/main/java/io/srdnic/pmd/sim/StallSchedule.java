package io.srdnic.pmd.sim;

/**
 * One host's stalls ({@link HostStalls}), drawn lazily from its own seeded stream as the clock
 * passes them: the same seed gives the same stalls, whatever else the run does. Queried with a
 * clock that never goes back; allocates nothing.
 */
final class StallSchedule {
    private final HostStalls stalls;
    private long state;
    private long start = Long.MAX_VALUE;
    private long end = Long.MIN_VALUE;

    StallSchedule(HostStalls stalls, long seed) {
        this.stalls = stalls;
        this.state = seed;
    }

    /** When the stall covering {@code now} ends, or {@code now} when the host runs. */
    long stallEnd(long now) {
        if (!stalls.enabled()) {
            return now;
        }
        if (end == Long.MIN_VALUE) {
            draw(0);
        }
        while (now - end >= 0) {
            draw(end);
        }
        return now - start >= 0 ? end : now;
    }

    /** The next stall after {@code from}: an exponential running time, then a uniform duration. */
    private void draw(long from) {
        double u = (next() >>> 11) * 0x1.0p-53;
        long gap = (long) (-Math.log1p(-u) * stalls.meanGapNanos());
        long span = stalls.maxNanos() - stalls.minNanos();
        long duration = stalls.minNanos() + (span == 0 ? 0 : Math.floorMod(next(), span + 1));
        start = from + Math.max(1, gap);
        end = start + duration;
    }

    /** SplitMix64. */
    private long next() {
        long z = state += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
