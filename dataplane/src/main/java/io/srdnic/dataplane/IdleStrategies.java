package io.srdnic.dataplane;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;

/**
 * What an lcore does after a pass that did nothing ({@code --idle}): {@code backoff} (the default)
 * spins 100 passes, yields 100, then parks 20 µs at a time — a park costs tens of µs of timer slack,
 * so an idle lcore answers within about that and leaves its core to others; {@code spin} never parks
 * (lowest latency, burns its core: latency runs, a core of its own); {@code sleep} sleeps 1 ms
 * (a host where the dataplane must not take CPU while idle; every first packet waits up to 1 ms).
 */
public final class IdleStrategies {
    static final String BACKOFF = "backoff";
    static final String SPIN = "spin";
    static final String SLEEP = "sleep";
    private static final long PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

    private IdleStrategies() {
    }

    /** A maker of the named strategy, one per lcore (they keep state); an unknown name is refused, naming the known ones. */
    public static Supplier<IdleStrategy> named(String name) {
        return switch (name) {
            case BACKOFF -> () -> new BackoffIdleStrategy(100, 100, PARK_NANOS, PARK_NANOS);
            case SPIN -> BusySpinIdleStrategy::new;
            case SLEEP -> () -> new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1));
            default -> throw new IllegalArgumentException("--idle is backoff, spin or sleep, was " + name);
        };
    }
}
