package io.srdnic.pmd.sim;

import java.math.BigInteger;
import java.util.SplittableRandom;

/**
 * One direction of one link: a FIFO transmitter with a finite queue, then a wire that delays and
 * damages frames as its {@link LinkConfig} says.
 * <p>
 * Frames are offered in time order, so the queue needs no storage: the time its transmitter is busy
 * until says everything (the backlog is the bytes that time stands for). That time is kept in
 * picoseconds so that rates which do not divide a nanosecond (1000 bytes at 100 Gbit/s is 80 ns,
 * 1514 bytes is 121.12 ns) add up without drift; virtual time must then stay below ~106 days.
 * <p>
 * {@link #offer} answers with the arrival time at the far end; the fault decisions it made for an
 * arriving frame are read from {@link #corruptBit()}, {@link #reordered()} and {@link #duplicated()}
 * before the next offer. All randomness comes from this link's own seeded generator, drawn in a
 * fixed order, so a run is reproducible from the network seed.
 */
final class SimLink {
    /** {@link #offer} result: the queue had no room (the transmitter state is unchanged). */
    static final long QUEUE_FULL = -1;
    /** {@link #offer} result: serialized, then lost on the wire. */
    static final long LOST = -2;

    static final int ETHERNET_HEADER_LENGTH = 14;
    private static final long PICOS_PER_NANO = 1_000;
    /** Bits per byte times picoseconds per second: bytes * this / bitsPerSecond = picoseconds. */
    private static final long BIT_PICOS_PER_BYTE = 8L * 1_000_000_000_000L;

    private final LinkConfig config;
    private final SplittableRandom random;
    private final long queueLimitPicos;
    private long busyUntilPicos;
    private long maxBacklogPicos;

    private int corruptBit = -1;
    private boolean reordered;
    private boolean duplicated;

    SimLink(LinkConfig config, long seed) {
        this.config = config;
        this.random = new SplittableRandom(seed);
        // Set-up only: the limit in transmit time, computed exactly and clamped.
        BigInteger picos = BigInteger.valueOf(config.queueLimitBytes()).multiply(BigInteger.valueOf(BIT_PICOS_PER_BYTE))
            .divide(BigInteger.valueOf(config.bitsPerSecond()));
        this.queueLimitPicos = picos.bitLength() < 63 ? picos.longValue() : Long.MAX_VALUE;
    }

    LinkConfig config() {
        return config;
    }

    /**
     * Offers a frame of {@code length} bytes at {@code nowNanos}: returns its arrival time at the
     * far end, or {@link #QUEUE_FULL} or {@link #LOST}.
     */
    long offer(long nowNanos, int length) {
        long nowPicos = nowNanos * PICOS_PER_NANO;
        long startPicos = Math.max(nowPicos, busyUntilPicos);
        long serializationPicos = length * BIT_PICOS_PER_BYTE / config.bitsPerSecond();
        if (startPicos - nowPicos + serializationPicos > queueLimitPicos) {
            return QUEUE_FULL;
        }
        busyUntilPicos = startPicos + serializationPicos;
        maxBacklogPicos = Math.max(maxBacklogPicos, busyUntilPicos - nowPicos);
        if (chance(config.lossProbability())) {
            return LOST;
        }
        long arrival = Math.ceilDiv(busyUntilPicos, PICOS_PER_NANO) + config.delayNanos();
        if (config.jitterNanos() > 0) {
            arrival += random.nextLong(config.jitterNanos() + 1);
        }
        corruptBit = length > ETHERNET_HEADER_LENGTH && chance(config.corruptProbability())
            ? ETHERNET_HEADER_LENGTH * 8 + random.nextInt((length - ETHERNET_HEADER_LENGTH) * 8)
            : -1;
        reordered = chance(config.reorderProbability());
        if (reordered) {
            arrival += 1 + random.nextLong(config.reorderDelayNanos());
        }
        duplicated = chance(config.duplicateProbability());
        return arrival;
    }

    /** The most bytes ever queued on this link (waiting or being serialized), as transmit time converted back. */
    long maxQueueBytes() {
        return BigInteger.valueOf(maxBacklogPicos).multiply(BigInteger.valueOf(config.bitsPerSecond()))
            .divide(BigInteger.valueOf(BIT_PICOS_PER_BYTE)).longValue();
    }

    /** Bit to flip in the frame that last arrived (0 = top bit of byte 0), or -1 for none. */
    int corruptBit() {
        return corruptBit;
    }

    boolean reordered() {
        return reordered;
    }

    boolean duplicated() {
        return duplicated;
    }

    /** Draws only for a fault that is configured, so a fault-free link consumes no randomness. */
    private boolean chance(double probability) {
        return probability > 0.0 && random.nextDouble() < probability;
    }
}
