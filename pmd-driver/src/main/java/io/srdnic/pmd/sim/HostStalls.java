package io.srdnic.pmd.sim;

/**
 * The "stalling host" fault: each host's thread stops now and then, as a process descheduled on a
 * busy machine, a VM's vCPU preempted, a GC pause or a page fault does. While a host is stalled it
 * neither sends nor reads: frames for it wait in its RX ring, and its timers do not run. Each host
 * stalls on its own seeded schedule: stalls last a uniform {@code [minNanos, maxNanos]}, and the
 * running time between them is exponential, with the mean that makes the host stalled
 * {@code fraction} of the time on average.
 * <p>
 * The network keeps the schedule ({@link SimNetwork#stallEnd}); the driver that runs the hosts
 * honours it, since only the driver decides when a host's duty cycle runs.
 */
public record HostStalls(double fraction, long minNanos, long maxNanos) {
    /** No host ever stalls. */
    public static final HostStalls NONE = new HostStalls(0, 0, 0);

    public HostStalls {
        if (!(fraction >= 0 && fraction < 1)) {
            throw new IllegalArgumentException("the stalled fraction of time must be in [0, 1), was " + fraction);
        }
        if (fraction > 0 && (minNanos <= 0 || maxNanos < minNanos)) {
            throw new IllegalArgumentException("stalls need 0 < minNanos <= maxNanos, was " + minNanos + ".." + maxNanos);
        }
    }

    /** Stalls of 0.1 to 5 ms, {@code fraction} of the time. */
    public static HostStalls of(double fraction) {
        return new HostStalls(fraction, 100_000, 5_000_000);
    }

    public boolean enabled() {
        return fraction > 0;
    }

    /** The mean running time between two stalls. */
    double meanGapNanos() {
        return (minNanos + maxNanos) / 2.0 * (1 - fraction) / fraction;
    }
}
