package io.srdnic.srd.transport.qp;

import java.lang.foreign.MemorySegment;

/**
 * Posted receives, in posting order: a ring of (wr id, buffer, offset, length, lkey). A QP's own,
 * or the ring of a {@link SharedReceiveQueue} that several QPs take from. The lkey names the
 * memory region the buffer was posted from (0: none named), so that delivery can refuse a receive
 * whose region has been deregistered since ({@link #headMemoryGone}).
 */
public final class ReceiveQueue {
    private final long[] wrId;
    private final MemorySegment[] buffer;
    private final long[] offset;
    private final int[] length;
    private final int[] lkey;
    private final int capacity;
    /** The SRQ this ring belongs to, told of every receive taken (its limit event); null for a QP's own. */
    private final SharedReceiveQueue srq;
    private long head;
    private long tail;

    ReceiveQueue(int capacity) {
        this(capacity, null);
    }

    ReceiveQueue(int capacity, SharedReceiveQueue srq) {
        this.capacity = capacity;
        this.srq = srq;
        wrId = new long[capacity];
        buffer = new MemorySegment[capacity];
        offset = new long[capacity];
        length = new int[capacity];
        lkey = new int[capacity];
    }

    /** Throws unless [offset, offset + length) lies inside {@code buffer}: checked when a receive is posted. */
    public static void checkInside(MemorySegment buffer, long offset, int length) {
        if (offset < 0 || length < 0 || offset + length > buffer.byteSize()) {
            throw new IndexOutOfBoundsException("receive buffer [" + offset + ", " + (offset + length) + ") outside a segment of "
                    + buffer.byteSize());
        }
    }

    public boolean offer(long wr, MemorySegment buf, long off, int len, int key) {
        if (tail - head == capacity) {
            return false;
        }
        int i = (int) (tail % capacity);
        wrId[i] = wr;
        buffer[i] = buf;
        offset[i] = off;
        length[i] = len;
        lkey[i] = key;
        tail++;
        return true;
    }

    public boolean isEmpty() {
        return head == tail;
    }

    public int size() {
        return (int) (tail - head);
    }

    public int headLength() {
        return length[(int) (head % capacity)];
    }

    public MemorySegment headBuffer() {
        return buffer[(int) (head % capacity)];
    }

    public long headOffset() {
        return offset[(int) (head % capacity)];
    }

    public long headWrId() {
        return wrId[(int) (head % capacity)];
    }

    /** The memory region the next receive was posted from (0: none named). */
    public int headKey() {
        return lkey[(int) (head % capacity)];
    }

    /**
     * Whether the next receive names a memory region that no longer holds its buffer: deregistered
     * since it was posted (verbs: the HCA refuses the receive's SGE, LOCAL_PROTECTION_ERROR). A
     * message must not land there: the application may have reused the memory for something else.
     */
    public boolean headMemoryGone(ReceiveRegions regions) {
        int i = (int) (head % capacity);
        return !regions.admits(lkey[i], buffer[i], offset[i], length[i]);
    }

    public void removeHead() {
        buffer[(int) (head % capacity)] = null;
        head++;
        if (srq != null) {
            srq.receiveTaken(); // here, so every consumer (each message layer) keeps the SRQ's limit
        }
    }
}
