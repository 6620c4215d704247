package io.srdnic.verbs;

import java.util.concurrent.locks.LockSupport;

/**
 * The idle strategy of every dataplane loop and waiter here, as Agrona's BackoffIdleStrategy: spin
 * a while, then yield, then park briefly (a park costs tens of µs of timer slack, so a loop that
 * must answer fast spins: {@code busySpin}).
 */
public final class Backoff {
    private Backoff() {
    }

    /** Idles once, the {@code idleCount}-th time in a row nothing was done. */
    public static void idle(int idleCount, boolean busySpin, long parkNanos) {
        if (busySpin || idleCount < 100) {
            Thread.onSpinWait();
        } else if (idleCount < 200) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
        }
    }
}
