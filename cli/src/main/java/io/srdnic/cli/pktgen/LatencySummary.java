package io.srdnic.cli.pktgen;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Round-trip times of a ping-pong run, in nanoseconds of whatever clock measured them: the
 * percentiles of an HdrHistogram (3 significant digits), how many round trips were measured,
 * how many were lost (timed out), and the time the measured ones took, for a rate.
 */
public record LatencySummary(long count, long lost, long minNs, long p50Ns, long p99Ns, long p999Ns, long maxNs,
                             double meanNs, long elapsedNs, long warmupNs) {

    /** Values above this (a minute) are recorded as this: a histogram of fixed size allocates nothing while recording. */
    public static final long HIGHEST_NANOS = 60_000_000_000L;

    /** A histogram for round trips in nanoseconds, made once before a run. */
    public static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_NANOS, 3);
    }

    /** Records one round trip into {@code h}, clamped to the histogram's range. */
    public static void record(Histogram h, long nanos) {
        h.recordValue(Math.max(1, Math.min(nanos, HIGHEST_NANOS)));
    }

    /** @param warmupNs how long the warm-up took, from the first round trip to the first measured one */
    public static LatencySummary of(Histogram h, long lost, long elapsedNs, long warmupNs) {
        long n = h.getTotalCount();
        if (n == 0) {
            return new LatencySummary(0, lost, 0, 0, 0, 0, 0, 0, elapsedNs, warmupNs);
        }
        return new LatencySummary(n, lost, h.getMinValue(), h.getValueAtPercentile(50), h.getValueAtPercentile(99),
            h.getValueAtPercentile(99.9), h.getMaxValue(), h.getMean(), elapsedNs, warmupNs);
    }

    /** Measured round trips per second (0 when none). */
    public double perSecond() {
        return count > 0 && elapsedNs > 0 ? count * 1e9 / elapsedNs : 0;
    }

    public static double us(long nanos) {
        return nanos / 1000.0;
    }

    /** min, p50, p99, p99.9 and max in microseconds, as a line people read. */
    public String text() {
        return String.format(Locale.ROOT, "round trip us: min %.2f  p50 %.2f  p99 %.2f  p99.9 %.2f  max %.2f  (%d measured, %d lost)",
            us(minNs), us(p50Ns), us(p99Ns), us(p999Ns), us(maxNs), count, lost);
    }

    /** The fields as JSON values, µs as {@code *_us}. Null percentiles when nothing was measured. */
    public Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        boolean any = count > 0;
        m.put("min_us", any ? us(minNs) : null);
        m.put("p50_us", any ? us(p50Ns) : null);
        m.put("p99_us", any ? us(p99Ns) : null);
        m.put("p999_us", any ? us(p999Ns) : null);
        m.put("max_us", any ? us(maxNs) : null);
        m.put("mean_us", any ? meanNs / 1000.0 : null);
        m.put("measured", count);
        m.put("lost", lost);
        m.put("elapsed_ns", elapsedNs);
        m.put("warmup_ns", warmupNs);
        return m;
    }

    /** Reads back what {@link #fields()} wrote (from a peer process's flat JSON). */
    public static LatencySummary parse(Map<String, String> f) {
        return new LatencySummary(Long.parseLong(f.get("measured")), Long.parseLong(f.get("lost")), nanos(f.get("min_us")),
            nanos(f.get("p50_us")), nanos(f.get("p99_us")), nanos(f.get("p999_us")), nanos(f.get("max_us")),
            f.get("mean_us") == null || f.get("mean_us").equals("null") ? 0 : Double.parseDouble(f.get("mean_us")) * 1000.0,
            Long.parseLong(f.get("elapsed_ns")), f.get("warmup_ns") == null ? 0 : Long.parseLong(f.get("warmup_ns")));
    }

    private static long nanos(String us) {
        return us == null || us.equals("null") ? 0 : Math.round(Double.parseDouble(us) * 1000.0);
    }
}
