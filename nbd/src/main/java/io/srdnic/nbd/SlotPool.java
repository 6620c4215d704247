package io.srdnic.nbd;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The free request slots of a connection: the reader takes one per request (waiting when every
 * slot is in flight, which pushes back on the client through TCP), completions give them back.
 * Last in, first out, so the same few slots (and their grown buffers) serve a shallow queue.
 */
final class SlotPool {
    private final RequestSlot[] free;
    private int count;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    SlotPool(Transmission owner, int slots) {
        free = new RequestSlot[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = new RequestSlot(owner);
        }
        count = slots;
    }

    RequestSlot take() throws InterruptedException {
        lock.lock();
        try {
            while (count == 0) {
                changed.await();
            }
            return pop();
        } finally {
            lock.unlock();
        }
    }

    /** A free slot, or null if every slot is in flight. */
    RequestSlot tryTake() {
        lock.lock();
        try {
            return count == 0 ? null : pop();
        } finally {
            lock.unlock();
        }
    }

    private RequestSlot pop() {
        RequestSlot slot = free[--count];
        free[count] = null;
        return slot;
    }

    void give(RequestSlot slot) {
        lock.lock();
        try {
            free[count++] = slot;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until every slot is back: nothing of this connection is in flight. */
    void awaitAllFree() throws InterruptedException {
        lock.lock();
        try {
            while (count < free.length) {
                changed.await();
            }
        } finally {
            lock.unlock();
        }
    }
}
