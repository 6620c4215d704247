package io.srdnic.srd.transport.srd;

import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.qp.TransportQp;
import java.lang.foreign.MemorySegment;

/**
 * Every send work request in the transport, struct-of-arrays with a free list, so posting and
 * completing allocate nothing. A request is one message; its packets' PSNs, paths, send times and
 * transmission counts are the reliability engine's ({@link ReliableSender}), which names the
 * request as their owner.
 */
public final class SendRequests {
    public static final int FREE = 0;
    /** Queued on its context, waiting for congestion window. */
    public static final int PENDING = 1;
    /** Sent, waiting for its ACK. */
    public static final int OUTSTANDING = 2;
    /** Refused by the responder for want of a receive; waiting out its RNR backoff. */
    public static final int RNR_WAIT = 3;
    /** Its QP was destroyed: released without a completion wherever it is found. */
    public static final int CANCELLED = 4;

    /**
     * Ended (acknowledged, failed or flushed) while the NIC still reads its memory for a packet sent
     * from it without a copy: out of every queue, its completion (if any) and its slot held until the
     * last such packet is freed by the driver.
     */
    public static final int NIC_HELD = 5;

    /** A request the transport made itself: the READ_RESPONSE data answering a peer's RDMA READ (never completed to a CQ). */
    public static final int OP_READ_RESPONSE = 5;
    /** Token bits that name the request; the rest carry its generation, so a token outlives no reuse of its slot. */
    static final int TOKEN_INDEX_BITS = 20;

    public final int capacity;
    public final int[] state;
    /** A {@link io.srdnic.srd.api.SendOpcode}, or {@link #OP_READ_RESPONSE}. */
    public final int[] opcode;
    public final long[] wrId;
    public final TransportQp[] qp;
    public final int[] addressHandle;
    public final int[] context;
    public final int[] destQpn;
    public final int[] qkey;
    public final MemorySegment[] buffer;
    public final long[] offset;
    public final int[] length;
    public final int[] immediate;
    public final boolean[] signaled;
    public final int[] rnrLeft;
    public final long[] readyAt;
    /** RDMA: the remote address and rkey (READ_RESPONSE: the rkey of the region answered from, checked at every packet). */
    public final long[] remoteAddress;
    public final int[] rkey;
    /** The packets the message is cut into, the next to get a PSN, and those in flight now. */
    public final int[] segments;
    public final int[] nextSegment;
    public final int[] inFlight;
    /** READ: bytes of the response still to arrive. */
    public final int[] readLeft;
    /** Packets sent from this request's memory that the driver has not freed yet. */
    public final int[] nicHolds;
    /** Whether the request has ended and waits for {@link #nicHolds} to reach 0, and the completion status it ended with (-1: none). */
    public final boolean[] endHeld;
    public final int[] heldStatus;
    private final int[] generation;
    /** Intrusive links: the context's pending FIFO, the RNR wait list, and the free list. */
    public final int[] next;
    private int freeHead;
    private int inUse;

    public SendRequests(int capacity) {
        this.capacity = capacity;
        state = new int[capacity];
        opcode = new int[capacity];
        wrId = new long[capacity];
        qp = new TransportQp[capacity];
        addressHandle = new int[capacity];
        context = new int[capacity];
        destQpn = new int[capacity];
        qkey = new int[capacity];
        buffer = new MemorySegment[capacity];
        offset = new long[capacity];
        length = new int[capacity];
        immediate = new int[capacity];
        signaled = new boolean[capacity];
        rnrLeft = new int[capacity];
        readyAt = new long[capacity];
        remoteAddress = new long[capacity];
        rkey = new int[capacity];
        segments = new int[capacity];
        nextSegment = new int[capacity];
        inFlight = new int[capacity];
        readLeft = new int[capacity];
        nicHolds = new int[capacity];
        endHeld = new boolean[capacity];
        heldStatus = new int[capacity];
        generation = new int[capacity];
        next = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            next[i] = i + 1 < capacity ? i + 1 : -1;
        }
        freeHead = 0;
    }

    /** A free request id, or -1 when all are in use. */
    public int take() {
        int r = freeHead;
        if (r >= 0) {
            freeHead = next[r];
            next[r] = -1;
            generation[r]++;
            nextSegment[r] = 0;
            inFlight[r] = 0;
            readLeft[r] = 0;
            nicHolds[r] = 0;
            endHeld[r] = false;
            inUse++;
        }
        return r;
    }

    /** Frees the request; its QP hears that the send buffer is no longer needed. */
    public void release(int r) {
        if (qp[r] != null && opcode[r] != OP_READ_RESPONSE) {
            qp[r].released(buffer[r], offset[r]);
        }
        state[r] = FREE;
        qp[r] = null;
        buffer[r] = null;
        next[r] = freeHead;
        freeHead = r;
        inUse--;
    }

    /** The token a READ request carries for its responses to name it by. */
    public int token(int r) {
        return (generation[r] << TOKEN_INDEX_BITS) | r;
    }

    /** The request {@code token} names if that request is still the one it was given for, else -1. */
    public int byToken(int token) {
        int r = token & ((1 << TOKEN_INDEX_BITS) - 1);
        return r < capacity && state[r] != FREE && token(r) == token ? r : -1;
    }

    public int inUse() {
        return inUse;
    }
}
