package io.srdnic.netty;

import java.util.concurrent.locks.LockSupport;

/**
 * How an event loop waits when a pass found nothing to do. INVOKER mode has no interrupt to wait on:
 * the loop thread itself must run the duty cycle to see a packet, so it spins a little (the next
 * packet of a busy connection is microseconds away), then yields the core until it has been idle
 * for {@link #PARK_AFTER_NANOS} (a peer waiting for an ACK retransmits after its RTO, as little as
 * 50 µs: a loop that parks between the packets of a live connection makes it retransmit for
 * nothing), and only then parks, for a time that doubles up to the longest park — an idle loop
 * costs a few wake-ups per millisecond, not a core, and a connection that wakes after a pause sees
 * at most that much extra latency on its first message.
 */
final class IdleBackoff {
    static final int SPINS = 200;
    static final long PARK_AFTER_NANOS = 2_000_000;
    static final long MIN_PARK_NANOS = 1_000;
    private final long maxParkNanos;
    private int idlePasses;
    private long idleSince;
    private long parkNanos = MIN_PARK_NANOS;

    IdleBackoff(long maxParkNanos) {
        if (maxParkNanos < MIN_PARK_NANOS) {
            throw new IllegalArgumentException("the longest park must be at least " + MIN_PARK_NANOS + " ns, was " + maxParkNanos);
        }
        this.maxParkNanos = maxParkNanos;
    }

    /** Work was done: the next idle pass starts spinning again. */
    void reset() {
        idlePasses = 0;
        parkNanos = MIN_PARK_NANOS;
    }

    /** One idle pass: spin, yield or park at most {@code limitNanos} (the loop's next scheduled task). */
    void idle(Object blocker, long limitNanos) {
        int n = idlePasses++;
        if (n == 0) {
            idleSince = System.nanoTime();
        }
        if (n < SPINS) {
            Thread.onSpinWait();
        } else if (System.nanoTime() - idleSince < PARK_AFTER_NANOS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(blocker, Math.max(0, Math.min(parkNanos, limitNanos)));
            parkNanos = Math.min(maxParkNanos, parkNanos * 2);
        }
    }
}
