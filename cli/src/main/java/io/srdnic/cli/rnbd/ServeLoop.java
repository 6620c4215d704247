package io.srdnic.cli.rnbd;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.agrona.concurrent.IdleStrategy;

/**
 * A server process's main loop: polls until SIGTERM (the shutdown hook waits for the loop to end,
 * so the caller's cleanup runs) or, for a child of another srdnic process, until its stdin closes.
 */
final class ServeLoop {
    private volatile boolean stop;
    private final CountDownLatch done = new CountDownLatch(1);

    ServeLoop(boolean exitOnStdinEof) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop = true;
            try {
                done.await();
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }, "srdnic-serve-shutdown"));
        if (exitOnStdinEof) {
            Thread watcher = new Thread(() -> {
                try (InputStream in = System.in) {
                    while (in.read() >= 0) {
                        // lines are not commands here: only the end matters
                    }
                } catch (IOException ignored) {
                    // closed
                }
                stop = true;
            }, "srdnic-serve-stdin");
            watcher.setDaemon(true);
            watcher.start();
        }
    }

    /** Polls until told to stop or until {@code quit} says so (EAL's shutdown has begun), pausing when idle. */
    void run(IntSupplier poll, BooleanSupplier quit) {
        run(poll, quit, idleStrategy());
    }

    /** As {@link #run(IntSupplier, BooleanSupplier)}, pausing with {@code backoff}, which other threads may wake. */
    void run(IntSupplier poll, BooleanSupplier quit, IdleStrategy backoff) {
        while (!stop && !quit.getAsBoolean()) {
            backoff.idle(poll.getAsInt());
        }
    }

    /** An idle poll loop's pause (WakeableIdle says why it sleeps rather than spins). */
    static WakeableIdle idleStrategy() {
        return new WakeableIdle();
    }

    /** The caller's cleanup is over: a SIGTERM may let the JVM exit now. */
    void finished() {
        done.countDown();
    }
}
