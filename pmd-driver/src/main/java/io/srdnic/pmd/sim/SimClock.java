package io.srdnic.pmd.sim;

import java.util.function.LongSupplier;

/**
 * Virtual time of a simulated network, in nanoseconds from 0.
 * <p>
 * Time moves only when the driver of the simulation moves it, so a run depends on its inputs and
 * seed, never on how fast the machine is: nothing in the simulation reads wall time. Code under
 * test is handed this clock (it is a {@link LongSupplier} of nanoseconds) where it would otherwise
 * read {@code System.nanoTime()}.
 * <p>
 * Not thread-safe: a simulation is driven by one thread.
 */
public final class SimClock implements LongSupplier {
    private long nowNanos;

    /** The current virtual time in nanoseconds. */
    public long now() {
        return nowNanos;
    }

    @Override
    public long getAsLong() {
        return nowNanos;
    }

    /** Moves time forward to {@code timeNanos}; moving it backwards is a bug and throws. */
    public void advanceTo(long timeNanos) {
        if (timeNanos < nowNanos) {
            throw new IllegalArgumentException("virtual time only runs forward: now " + nowNanos
                + " ns, asked for " + timeNanos + " ns");
        }
        nowNanos = timeNanos;
    }

    /** Moves time forward by {@code deltaNanos} (not negative). */
    public void advanceBy(long deltaNanos) {
        if (deltaNanos < 0) {
            throw new IllegalArgumentException("virtual time only runs forward: cannot advance by " + deltaNanos + " ns");
        }
        advanceTo(Math.addExact(nowNanos, deltaNanos));
    }

    @Override
    public String toString() {
        return "SimClock[" + nowNanos + " ns]";
    }
}
