package io.srdnic.srd.api;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A single-producer single-consumer ring of work completions, struct-of-arrays so pushing and
 * polling allocate nothing. The dataplane thread pushes; the application polls, on the same thread
 * (INVOKER mode) or another (DEDICATED mode): the tail is published with a release store after the
 * record is written, and the head likewise after it is read. A push into a full queue is an
 * overrun: counted, the completion lost, and the queue marked in error, as a CQ overrun is in verbs
 * (the transport then raises CQ_ERROR and moves the QPs that report here to ERROR). The transport
 * checks {@link #isFull()} before it accepts a message whose receive completion would not fit, so
 * nothing is acknowledged that the application will never see; only the producer pushes, so room
 * it saw cannot vanish before its push.
 */
public final class CompletionQueue {
    private final int mask;
    private final long[] wrId;
    private final int[] status;
    private final int[] opcode;
    private final int[] byteLength;
    private final int[] immediate;
    private final boolean[] hasImmediate;
    private final int[] qpn;
    private final int[] sourceQpn;
    private final int[] sourceIp;
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(CompletionQueue.class, "head", long.class);
            TAIL = lookup.findVarHandle(CompletionQueue.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long head;
    private long tail;
    private long overruns;
    private boolean inError;

    public CompletionQueue(int capacity) {
        if (capacity < 1 || capacity > (1 << 24)) {
            throw new IllegalArgumentException("CQ capacity must be 1..16M, was " + capacity);
        }
        int size = Integer.bitCount(capacity) == 1 ? capacity : Integer.highestOneBit(capacity) << 1;
        this.mask = size - 1;
        wrId = new long[size];
        status = new int[size];
        opcode = new int[size];
        byteLength = new int[size];
        immediate = new int[size];
        hasImmediate = new boolean[size];
        qpn = new int[size];
        sourceQpn = new int[size];
        sourceIp = new int[size];
    }

    /** Adds a completion; false (and an overrun counted) if the queue is full. */
    public boolean push(long wr, int st, int op, int length, boolean withImm, int imm, int qp, int srcQpn, int srcIp) {
        long t = tail;
        if (t - (long) HEAD.getAcquire(this) > mask) {
            overruns++;
            return false;
        }
        int i = (int) (t & mask);
        wrId[i] = wr;
        status[i] = st;
        opcode[i] = op;
        byteLength[i] = length;
        hasImmediate[i] = withImm;
        immediate[i] = imm;
        qpn[i] = qp;
        sourceQpn[i] = srcQpn;
        sourceIp[i] = srcIp;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /** Moves up to {@code max} completions into {@code sink}; returns how many. */
    public int poll(CompletionSink sink, int max) {
        long h = head;
        long t = (long) TAIL.getAcquire(this);
        int n = 0;
        while (n < max && h < t) {
            int i = (int) (h & mask);
            sink.onCompletion(wrId[i], status[i], opcode[i], byteLength[i], hasImmediate[i], immediate[i], qpn[i],
                    sourceQpn[i], sourceIp[i]);
            h++;
            n++;
        }
        if (n > 0) {
            HEAD.setRelease(this, h);
        }
        return n;
    }

    /** No room for one more completion (the producer's view: room only grows under it). */
    public boolean isFull() {
        return tail - (long) HEAD.getAcquire(this) > mask;
    }

    /** Marks the queue in error after an overrun; true the first time, so the error is reported once. */
    public boolean markError() {
        boolean first = !inError;
        inError = true;
        return first;
    }

    /** Whether a completion was ever lost here (IBV_EVENT_CQ_ERR). */
    public boolean inError() {
        return inError;
    }

    public int size() {
        return (int) ((long) TAIL.getAcquire(this) - (long) HEAD.getAcquire(this));
    }

    public int capacity() {
        return mask + 1;
    }

    public long overruns() {
        return overruns;
    }

    /** Receives polled completions (an interface, so polling allocates nothing). */
    @FunctionalInterface
    public interface CompletionSink {
        void onCompletion(long wrId, int status, int opcode, int byteLength, boolean hasImmediate, int immediate,
                          int qpn, int sourceQpn, int sourceIp);
    }
}
