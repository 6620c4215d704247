package io.srdnic.pmd.sim;

/**
 * How one direction of a simulated link behaves: its rate and queue, its delay, and the faults it
 * injects. Each frame crossing the link is, in this order: admitted to the queue or dropped
 * ({@code DROPPED_QUEUE_FULL}); serialized at {@link #bitsPerSecond()} after the frames ahead of
 * it; lost with {@link #lossProbability()}; otherwise it arrives {@link #delayNanos()} plus a
 * uniform jitter in [0, {@link #jitterNanos()}] after its last bit left, is corrupted with
 * {@link #corruptProbability()}, held back a further uniform (0, {@link #reorderDelayNanos()}]
 * with {@link #reorderProbability()} (so later frames overtake it), and copied with
 * {@link #duplicateProbability()} (the copy arrives right behind it and takes no extra bandwidth).
 * <p>
 * The queue limit bounds the bytes waiting or in service when a frame arrives: the frame is taken
 * when backlog + frame &lt;= {@link #queueLimitBytes()}.
 * <p>
 * Defaults ({@link #DEFAULT}): 100 Gbit/s, 2 µs propagation delay, no jitter, 1 MiB queue, no
 * faults, 10 µs reorder delay.
 */
public record LinkConfig(
    long bitsPerSecond,
    long delayNanos,
    long jitterNanos,
    long queueLimitBytes,
    double lossProbability,
    double duplicateProbability,
    double reorderProbability,
    long reorderDelayNanos,
    double corruptProbability) {

    public static final long DEFAULT_BITS_PER_SECOND = 100_000_000_000L;
    public static final long DEFAULT_DELAY_NANOS = 2_000;
    public static final long DEFAULT_JITTER_NANOS = 0;
    public static final long DEFAULT_QUEUE_LIMIT_BYTES = 1 << 20;
    public static final long DEFAULT_REORDER_DELAY_NANOS = 10_000;

    /** A fault-free 100 Gbit/s link with 2 µs delay and a 1 MiB queue. */
    public static final LinkConfig DEFAULT = builder().build();

    public LinkConfig {
        positive("bitsPerSecond", bitsPerSecond);
        notNegative("delayNanos", delayNanos);
        notNegative("jitterNanos", jitterNanos);
        positive("queueLimitBytes", queueLimitBytes);
        positive("reorderDelayNanos", reorderDelayNanos);
        probability("lossProbability", lossProbability);
        probability("duplicateProbability", duplicateProbability);
        probability("reorderProbability", reorderProbability);
        probability("corruptProbability", corruptProbability);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder()
            .bitsPerSecond(bitsPerSecond).delayNanos(delayNanos).jitterNanos(jitterNanos).queueLimitBytes(queueLimitBytes)
            .lossProbability(lossProbability).duplicateProbability(duplicateProbability)
            .reorderProbability(reorderProbability).reorderDelayNanos(reorderDelayNanos)
            .corruptProbability(corruptProbability);
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }

    private static void notNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
    }

    private static void probability(String name, double value) {
        if (!(value >= 0.0 && value <= 1.0)) {
            throw new IllegalArgumentException(name + " must be a probability in [0, 1], was " + value);
        }
    }

    /** Builds a {@link LinkConfig}; every setting starts at its default. */
    public static final class Builder {
        private long bitsPerSecond = DEFAULT_BITS_PER_SECOND;
        private long delayNanos = DEFAULT_DELAY_NANOS;
        private long jitterNanos = DEFAULT_JITTER_NANOS;
        private long queueLimitBytes = DEFAULT_QUEUE_LIMIT_BYTES;
        private double lossProbability;
        private double duplicateProbability;
        private double reorderProbability;
        private long reorderDelayNanos = DEFAULT_REORDER_DELAY_NANOS;
        private double corruptProbability;

        private Builder() {
        }

        public Builder bitsPerSecond(long value) {
            bitsPerSecond = value;
            return this;
        }

        public Builder delayNanos(long value) {
            delayNanos = value;
            return this;
        }

        public Builder jitterNanos(long value) {
            jitterNanos = value;
            return this;
        }

        public Builder queueLimitBytes(long value) {
            queueLimitBytes = value;
            return this;
        }

        public Builder lossProbability(double value) {
            lossProbability = value;
            return this;
        }

        public Builder duplicateProbability(double value) {
            duplicateProbability = value;
            return this;
        }

        public Builder reorderProbability(double value) {
            reorderProbability = value;
            return this;
        }

        public Builder reorderDelayNanos(long value) {
            reorderDelayNanos = value;
            return this;
        }

        public Builder corruptProbability(double value) {
            corruptProbability = value;
            return this;
        }

        public LinkConfig build() {
            return new LinkConfig(bitsPerSecond, delayNanos, jitterNanos, queueLimitBytes, lossProbability,
                duplicateProbability, reorderProbability, reorderDelayNanos, corruptProbability);
        }
    }
}
