package io.srdnic.rnbd.server;

import java.util.concurrent.locks.LockSupport;

/**
 * Threads that run the server's file IO off the RTRS poll thread: a pread, a pwrite or an fsync
 * may wait on the disk for milliseconds, and while the poll thread waits no other IO, no
 * heartbeat and no ACK of any session moves. The poll thread hands a {@link BlockRequest} to
 * {@link #submit}; a worker runs it on its device; the finished request comes back through a
 * queue the poll thread empties in {@link #drain}, which answers it there (RTRS is single-threaded).
 *
 * <p>Both queues are {@link BoundedQueue}s: nothing is allocated per IO. An idle worker
 * parks after a few empty polls and {@link #submit} unparks one; the poll loop is woken by the
 * {@code wake} callback when a request finishes, so neither side sleeps through the hand-off.
 */
final class IoWorkers implements AutoCloseable {
    /** Requests queued or running at most; beyond it a request runs on the poll thread (counted). */
    static final int CAPACITY = 4096;
    private static final int SPINS = 100;

    private final BoundedQueue<BlockRequest> submitted = new BoundedQueue<>(CAPACITY);
    private final BoundedQueue<BlockRequest> finished = new BoundedQueue<>(CAPACITY);
    private final Thread[] threads;
    private volatile int parked;
    private volatile boolean stop;
    private volatile Runnable wake = () -> { };
    /** Requests that found the queue full and ran on the poll thread instead. */
    long ranInline;

    IoWorkers(int count) {
        threads = new Thread[count];
        for (int i = 0; i < count; i++) {
            threads[i] = Thread.ofPlatform().daemon().name("srdnic-rnbd-io-" + i).unstarted(this::work);
        }
        for (Thread t : threads) {
            t.start();
        }
    }

    /** Run on a request's completion, on the worker's thread: wakes the poll loop if it sleeps. */
    void onFinished(Runnable wake) {
        this.wake = wake;
    }

    /** From the poll thread: queues {@code r} for a worker; false if the queue is full (run it inline). */
    boolean submit(BlockRequest r) {
        if (!submitted.offer(r)) {
            ranInline++;
            return false;
        }
        if (parked > 0) {
            for (Thread t : threads) {
                LockSupport.unpark(t); // a spurious unpark only costs the worker one empty poll
            }
        }
        return true;
    }

    /** From a worker: the device completed {@code r}; queued for the poll thread. */
    void finished(BlockRequest r) {
        while (!finished.offer(r)) {
            Thread.onSpinWait(); // at most CAPACITY are in flight, so the poll thread is emptying it
        }
        wake.run();
    }

    /** On the poll thread: answers every finished request; returns how many. */
    int drain() {
        int n = 0;
        BlockRequest r;
        while ((r = finished.poll()) != null) {
            r.respond();
            n++;
        }
        return n;
    }

    private void work() {
        int idle = 0;
        while (!stop) {
            BlockRequest r = submitted.poll();
            if (r != null) {
                idle = 0;
                r.runOnWorker();
                continue;
            }
            if (++idle < SPINS) {
                Thread.onSpinWait();
                continue;
            }
            synchronized (this) {
                parked++;
            }
            if (submitted.isEmpty() && !stop) {
                LockSupport.parkNanos(this, 100_000_000L);
            }
            synchronized (this) {
                parked--;
            }
        }
    }

    @Override
    public void close() {
        stop = true;
        for (Thread t : threads) {
            LockSupport.unpark(t);
        }
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
