package io.srdnic.cli.rnbd;

import java.util.concurrent.locks.LockSupport;

/**
 * An idle poll loop's pause: spins while work comes, then parks for 20 us at a time. Two busy
 * processes (server and gateway) on a 2-core machine leave the NBD clients no CPU otherwise.
 */
final class Backoff {
    private int idle;

    void after(int work) {
        if (work > 0) {
            idle = 0;
        } else if (++idle > 2000) {
            LockSupport.parkNanos(20_000);
        } else {
            Thread.onSpinWait();
        }
    }
}
