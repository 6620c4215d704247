package io.srdnic.verbs;

import io.srdnic.srd.transport.port.GatherList;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.rc.SrdQp;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * DEDICATED mode's hand-off of posts from the application thread to the dataplane agent: a
 * single-producer single-consumer ring of records, written field by field and published with a
 * release store of the tail, as Agrona's rings are. Nothing is allocated per post.
 */
final class PostRing {
    static final int SEND = 1;
    static final int RECV = 2;
    /** A send that failed the application-side checks: completed on the agent thread with {@code status}. */
    static final int LOCAL_ERROR = 3;
    /** A receive posted to a shared receive queue ({@link #srq}). */
    static final int SRQ_RECV = 4;

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(PostRing.class, "head", long.class);
            TAIL = lookup.findVarHandle(PostRing.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int mask;
    final int[] op;
    final SrdQp[] qp;
    final SharedReceiveQueue[] srq;
    final long[] wrId;
    final int[] ah;
    final int[] destQpn;
    final int[] qkey;
    /** SEND records of an SRC (XRC_SEND) QP: the remote SRQ number. */
    final int[] remoteSrqn;
    final MemorySegment[] buffer;
    final long[] offset;
    final int[] length;
    /** SEND records: the work request's opcode, immediate and RDMA target. */
    final int[] opcode;
    final int[] imm;
    final long[] remoteAddress;
    /** SEND records: the RDMA target's rkey; RECV and SRQ_RECV records: the receive's lkey. */
    final int[] rkey;
    /** SEND records of an atomic: its operands. */
    final long[] compareAdd;
    final long[] swap;
    final boolean[] signaled;
    /** SEND records of a SEND or WRITE gathered on an RC or SRC QP: the work request's SGEs, copied (the lists are made once). */
    final boolean[] gathered;
    final GatherList[] gather;
    final int[] status;
    private long head;
    private long tail;
    /**
     * The most records one drain found since {@link #takeMaxBacklog()} last asked: the ring's
     * occupancy, for the counters. Consumer only.
     */
    private long maxBacklog;

    PostRing(int capacity) {
        int size = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        mask = size - 1;
        op = new int[size];
        qp = new SrdQp[size];
        srq = new SharedReceiveQueue[size];
        wrId = new long[size];
        ah = new int[size];
        destQpn = new int[size];
        qkey = new int[size];
        remoteSrqn = new int[size];
        buffer = new MemorySegment[size];
        offset = new long[size];
        length = new int[size];
        opcode = new int[size];
        imm = new int[size];
        remoteAddress = new long[size];
        rkey = new int[size];
        compareAdd = new long[size];
        swap = new long[size];
        signaled = new boolean[size];
        gathered = new boolean[size];
        gather = new GatherList[size];
        for (int i = 0; i < size; i++) {
            gather[i] = new GatherList();
        }
        status = new int[size];
    }

    /**
     * Fills slot {@code i} with a SEND record of {@code wr}: every field the transport's posts take,
     * copied, so that the application may change {@code wr} as soon as its post returns;
     * {@code gathers}: its SGEs are copied too, for the transport to gather from.
     */
    void putSend(int i, SrdQp qp, SendWr wr, int ah, MemorySegment buffer, long offset, int length, boolean signaled, boolean gathers) {
        op[i] = SEND;
        this.qp[i] = qp;
        wrId[i] = wr.wrId;
        this.ah[i] = ah;
        destQpn[i] = wr.remoteQpn;
        qkey[i] = wr.remoteQkey;
        remoteSrqn[i] = wr.remoteSrqn;
        this.buffer[i] = buffer;
        this.offset[i] = offset;
        this.length[i] = length;
        opcode[i] = wr.opcode;
        imm[i] = wr.immediate;
        remoteAddress[i] = wr.remoteAddress;
        rkey[i] = wr.rkey;
        compareAdd[i] = wr.compareAdd;
        swap[i] = wr.swap;
        this.signaled[i] = signaled;
        gathered[i] = gathers;
        if (gathers) {
            GatherList g = gather[i];
            g.clear();
            for (int k = 0; k < wr.numSge; k++) {
                g.add(wr.sges[k].segment, wr.sges[k].offset, wr.sges[k].length);
            }
        }
    }

    /** Lets go of what slot {@code i} refers to (a drained slot's buffer and QP are not kept alive by the ring). */
    void clear(int i) {
        buffer[i] = null;
        if (gathered[i]) {
            gather[i].clear();
        }
        qp[i] = null;
        srq[i] = null;
    }

    /** The slot to fill, or -1 when the ring is full. Producer only. */
    int claim() {
        long t = tail;
        return t - (long) HEAD.getAcquire(this) > mask ? -1 : (int) (t & mask);
    }

    /** Publishes the slot {@link #claim()} returned. Producer only. */
    void publish() {
        TAIL.setRelease(this, tail + 1);
    }

    /** Hands every published record to {@code consumer}; returns how many. Consumer only. */
    int drain(Consumer consumer) {
        long h = head;
        long t = (long) TAIL.getAcquire(this);
        if (t - h > maxBacklog) {
            maxBacklog = t - h;
        }
        int n = 0;
        for (; h < t; h++, n++) {
            int i = (int) (h & mask);
            consumer.accept(this, i);
            clear(i);
        }
        if (n > 0) {
            HEAD.setRelease(this, h);
        }
        return n;
    }

    /** The largest backlog a drain found since the last call, and starts afresh. Consumer only. */
    long takeMaxBacklog() {
        long m = maxBacklog;
        maxBacklog = 0;
        return m;
    }

    int capacity() {
        return mask + 1;
    }

    @FunctionalInterface
    interface Consumer {
        void accept(PostRing ring, int slot);
    }
}
