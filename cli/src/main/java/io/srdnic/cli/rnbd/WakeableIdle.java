package io.srdnic.cli.rnbd;

import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.IdleStrategy;

/**
 * An idle poll loop's pause: a few spins while work is likely to come at once, then short sleeps
 * (10 us, with the thread's timer slack at 1 us), then, after 20 ms without work, 1 ms sleeps.
 *
 * <p>Why sleep rather than spin or yield (docs/performance.md, "The block path"): an IO through
 * nbd-local needs five threads to run in turn (fio, the NBD reader, the gateway's poll loop, the
 * server's poll loop, the NBD reply writer) on a 2-core machine that also runs whatever else it
 * runs. A loop that spins or yields stays runnable, so the fair scheduler gives it its whole share
 * while the thread it waits for queues behind it; a thread that sleeps is not runnable, and when it
 * wakes the scheduler lets it in at once (a woken sleeper preempts). A sleeping loop also lets
 * {@link #wake} cut the sleep short when work is handed to it. Agrona's {@code BackoffIdleStrategy}
 * has the spin-then-park shape but no wake-up and no timer slack, hence this small strategy of our own.
 */
final class WakeableIdle implements IdleStrategy {
    static final int SPINS = 50;
    static final long SHORT_PARK_NANOS = 10_000;
    static final int SHORT_PARKS = 2000;
    static final long LONG_PARK_NANOS = 1_000_000;
    private int idle;
    private boolean slackSet;
    private volatile Thread parked;

    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            idle = 0;
            return;
        }
        if (++idle <= SPINS) {
            Thread.onSpinWait();
            return;
        }
        if (!slackSet) {
            slackSet = true;
            TimerSlack.set(1_000);
        }
        parked = Thread.currentThread();
        LockSupport.parkNanos(this, idle <= SPINS + SHORT_PARKS ? SHORT_PARK_NANOS : LONG_PARK_NANOS);
        parked = null;
    }

    @Override
    public void idle() {
        idle(0);
    }

    @Override
    public void reset() {
        idle = 0;
    }

    /** From another thread: work was handed to the loop; ends its sleep if it is sleeping. Allocates nothing. */
    void wake() {
        Thread t = parked;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
