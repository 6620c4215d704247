package io.srdnic.pmd.sim;

/**
 * Frames in flight, ordered by (arrival time, sequence number): a binary min-heap of buffer
 * indices over preallocated parallel arrays, so scheduling a frame allocates nothing.
 * <p>
 * A frame is in exactly one place at a time, so each buffer index is in the heap at most once and
 * a capacity of the pool size can never overflow. The sequence number is taken when a frame is
 * scheduled: frames due at the same nanosecond leave in the order they were scheduled, which makes
 * a run deterministic.
 */
final class EventHeap {
    private final int[] heap;
    private final long[] time;
    private final long[] sequence;
    private int size;
    private long nextSequence;

    EventHeap(int capacity) {
        heap = new int[capacity];
        time = new long[capacity];
        sequence = new long[capacity];
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Schedules {@code frame} (not already scheduled) to arrive at {@code timeNanos}. */
    void add(int frame, long timeNanos) {
        time[frame] = timeNanos;
        sequence[frame] = nextSequence++;
        int at = size++;
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (!before(frame, heap[parent])) {
                break;
            }
            heap[at] = heap[parent];
            at = parent;
        }
        heap[at] = frame;
    }

    /** Arrival time of the earliest frame, or {@link Long#MAX_VALUE} when none is in flight. */
    long peekTime() {
        return size == 0 ? Long.MAX_VALUE : time[heap[0]];
    }

    /** Removes and returns the earliest frame; the heap must not be empty. */
    int poll() {
        int first = heap[0];
        int last = heap[--size];
        int at = 0;
        int half = size >>> 1;
        while (at < half) {
            int child = 2 * at + 1;
            int right = child + 1;
            if (right < size && before(heap[right], heap[child])) {
                child = right;
            }
            if (!before(heap[child], last)) {
                break;
            }
            heap[at] = heap[child];
            at = child;
        }
        if (size > 0) {
            heap[at] = last;
        }
        return first;
    }

    private boolean before(int a, int b) {
        return time[a] < time[b] || (time[a] == time[b] && sequence[a] < sequence[b]);
    }
}
