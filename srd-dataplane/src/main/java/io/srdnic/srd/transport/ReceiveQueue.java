package io.srdnic.srd.transport;

import java.lang.foreign.MemorySegment;

/** A QP's posted receives, in posting order: a ring of (wr id, buffer, offset, length). */
final class ReceiveQueue {
    private final long[] wrId;
    private final MemorySegment[] buffer;
    private final long[] offset;
    private final int[] length;
    private final int capacity;
    private long head;
    private long tail;

    ReceiveQueue(int capacity) {
        this.capacity = capacity;
        wrId = new long[capacity];
        buffer = new MemorySegment[capacity];
        offset = new long[capacity];
        length = new int[capacity];
    }

    boolean offer(long wr, MemorySegment buf, long off, int len) {
        if (tail - head == capacity) {
            return false;
        }
        int i = (int) (tail % capacity);
        wrId[i] = wr;
        buffer[i] = buf;
        offset[i] = off;
        length[i] = len;
        tail++;
        return true;
    }

    boolean isEmpty() {
        return head == tail;
    }

    int size() {
        return (int) (tail - head);
    }

    int headLength() {
        return length[(int) (head % capacity)];
    }

    MemorySegment headBuffer() {
        return buffer[(int) (head % capacity)];
    }

    long headOffset() {
        return offset[(int) (head % capacity)];
    }

    long headWrId() {
        return wrId[(int) (head % capacity)];
    }

    void removeHead() {
        buffer[(int) (head % capacity)] = null;
        head++;
    }
}
