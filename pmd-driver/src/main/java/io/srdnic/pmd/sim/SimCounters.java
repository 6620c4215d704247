package io.srdnic.pmd.sim;

/**
 * Counts of {@link SimEvent}s for one {@link SimPort} (or summed over a network).
 * <p>
 * A port's counters describe the fate of the frames it <em>sent</em>, wherever in the network that
 * fate was met, except {@link #rxFrames()} and {@link #rxRingFull()}, which count frames it
 * <em>received</em>, and {@link #poolExhausted()}, which also counts its own refused allocations.
 * Written by the simulation thread only.
 */
public final class SimCounters {
    private final long[] counts = new long[SimEvent.VALUES.length];

    void increment(SimEvent event) {
        counts[event.ordinal()]++;
    }

    /** The count of one kind of event. */
    public long get(SimEvent event) {
        return counts[event.ordinal()];
    }

    public long txFrames() {
        return get(SimEvent.SENT);
    }

    public long rxFrames() {
        return get(SimEvent.DELIVERED);
    }

    public long duplicates() {
        return get(SimEvent.DUPLICATED);
    }

    public long corrupted() {
        return get(SimEvent.CORRUPTED);
    }

    public long reordered() {
        return get(SimEvent.REORDERED);
    }

    public long lost() {
        return get(SimEvent.DROPPED_LOSS);
    }

    public long blackholed() {
        return get(SimEvent.DROPPED_BLACKHOLE);
    }

    public long queueFull() {
        return get(SimEvent.DROPPED_QUEUE_FULL);
    }

    public long rxRingFull() {
        return get(SimEvent.DROPPED_RX_RING_FULL);
    }

    public long unknownDestination() {
        return get(SimEvent.DROPPED_UNKNOWN_DESTINATION);
    }

    public long poolExhausted() {
        return get(SimEvent.DROPPED_POOL_EXHAUSTED);
    }

    public long malformed() {
        return get(SimEvent.DROPPED_MALFORMED);
    }

    /** Every drop, whatever the reason. */
    public long dropped() {
        long sum = 0;
        for (SimEvent event : SimEvent.VALUES) {
            if (event.isDrop()) {
                sum += counts[event.ordinal()];
            }
        }
        return sum;
    }

    /** Adds these counts into {@code total}. */
    public void addTo(SimCounters total) {
        for (int i = 0; i < counts.length; i++) {
            total.counts[i] += counts[i];
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("SimCounters[");
        String separator = "";
        for (SimEvent event : SimEvent.VALUES) {
            long count = counts[event.ordinal()];
            if (count != 0) {
                sb.append(separator).append(event.name().toLowerCase()).append('=').append(count);
                separator = ", ";
            }
        }
        return sb.append(']').toString();
    }
}
