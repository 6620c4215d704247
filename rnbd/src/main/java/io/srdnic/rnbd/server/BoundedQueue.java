package io.srdnic.rnbd.server;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A bounded lock-free queue for any number of producers and consumers (Dmitry Vyukov's array
 * queue): each cell carries a sequence number that says whether it is free for the producer or full
 * for the consumer of a given position. Offering and polling allocate nothing and never block,
 * which the JDK's queues do not promise together (ArrayBlockingQueue takes a lock that allocates
 * a wait node when contended; ConcurrentLinkedQueue allocates a node per element), and Agrona's
 * need access to jdk.internal.misc that this module's users do not grant.
 */
final class BoundedQueue<T> {
    private final Object[] items;
    private final AtomicLongArray sequences;
    private final int mask;
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();

    /** Room for {@code capacity} elements, a power of two. */
    BoundedQueue(int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two >= 2: " + capacity);
        }
        items = new Object[capacity];
        sequences = new AtomicLongArray(capacity);
        mask = capacity - 1;
        for (int i = 0; i < capacity; i++) {
            sequences.set(i, i);
        }
    }

    /** Adds {@code item} (not null); false when full. */
    boolean offer(T item) {
        long pos = tail.get();
        while (true) {
            int i = (int) pos & mask;
            long d = sequences.get(i) - pos;
            if (d == 0) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    items[i] = item;
                    sequences.set(i, pos + 1); // publishes the item to the consumer of this position
                    return true;
                }
                pos = tail.get();
            } else if (d < 0) {
                return false; // the cell still holds the element of the lap before: full
            } else {
                pos = tail.get();
            }
        }
    }

    /** The oldest element, or null when empty. */
    @SuppressWarnings("unchecked")
    T poll() {
        long pos = head.get();
        while (true) {
            int i = (int) pos & mask;
            long d = sequences.get(i) - (pos + 1);
            if (d == 0) {
                if (head.compareAndSet(pos, pos + 1)) {
                    T item = (T) items[i];
                    items[i] = null;
                    sequences.set(i, pos + mask + 1); // free for the producer of the next lap
                    return item;
                }
                pos = head.get();
            } else if (d < 0) {
                return null;
            } else {
                pos = head.get();
            }
        }
    }

    boolean isEmpty() {
        return head.get() >= tail.get();
    }
}
