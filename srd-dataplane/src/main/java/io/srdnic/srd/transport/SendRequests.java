package io.srdnic.srd.transport;

import java.lang.foreign.MemorySegment;

/**
 * Every send work request in the transport, struct-of-arrays with a free list, so posting and
 * completing allocate nothing. A request is one message; its packets' PSNs, paths, send times and
 * transmission counts are the reliability engine's ({@link ReliableSender}), which names the
 * request as their owner.
 */
final class SendRequests {
    static final int FREE = 0;
    /** Queued on its context, waiting for congestion window. */
    static final int PENDING = 1;
    /** Sent, waiting for its ACK. */
    static final int OUTSTANDING = 2;
    /** Refused by the responder for want of a receive; waiting out its RNR backoff. */
    static final int RNR_WAIT = 3;
    /** Its QP was destroyed: released without a completion wherever it is found. */
    static final int CANCELLED = 4;

    final int capacity;
    final int[] state;
    final long[] wrId;
    final SrdQp[] qp;
    final int[] addressHandle;
    final int[] context;
    final int[] destQpn;
    final int[] qkey;
    final MemorySegment[] buffer;
    final long[] offset;
    final int[] length;
    final int[] immediate;
    final boolean[] withImmediate;
    final boolean[] signaled;
    final long[] postTime;
    final int[] rnrLeft;
    final long[] readyAt;
    /** Intrusive links: the context's pending FIFO, the RNR wait list, and the free list. */
    final int[] next;
    private int freeHead;
    private int inUse;

    SendRequests(int capacity) {
        this.capacity = capacity;
        state = new int[capacity];
        wrId = new long[capacity];
        qp = new SrdQp[capacity];
        addressHandle = new int[capacity];
        context = new int[capacity];
        destQpn = new int[capacity];
        qkey = new int[capacity];
        buffer = new MemorySegment[capacity];
        offset = new long[capacity];
        length = new int[capacity];
        immediate = new int[capacity];
        withImmediate = new boolean[capacity];
        signaled = new boolean[capacity];
        postTime = new long[capacity];
        rnrLeft = new int[capacity];
        readyAt = new long[capacity];
        next = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            next[i] = i + 1 < capacity ? i + 1 : -1;
        }
        freeHead = 0;
    }

    /** A free request id, or -1 when all are in use. */
    int take() {
        int r = freeHead;
        if (r >= 0) {
            freeHead = next[r];
            next[r] = -1;
            inUse++;
        }
        return r;
    }

    /** Frees the request; its QP hears that the send buffer is no longer needed. */
    void release(int r) {
        if (qp[r] != null) {
            qp[r].released(buffer[r], offset[r]);
        }
        state[r] = FREE;
        qp[r] = null;
        buffer[r] = null;
        next[r] = freeHead;
        freeHead = r;
        inUse--;
    }

    int inUse() {
        return inUse;
    }
}
