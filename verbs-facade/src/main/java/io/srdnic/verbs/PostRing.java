package io.srdnic.verbs;

import io.srdnic.srd.transport.port.GatherList;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * DEDICATED mode's hand-off of posts from the application thread to the dataplane agent: a
 * single-producer single-consumer ring of records, written field by field and published with a
 * release store of the tail, as Agrona's rings are. Nothing is allocated per post. A slot's record
 * is the transport's own {@link WorkRequest} (one per slot, made once): the poster fills it, the
 * agent hands that same object to the transport, so a send keeps one shape from the post to the
 * transport's send slot; a receive record uses its wrId, buffer, offset, length and rkey (the lkey).
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
    final DeviceQp[] qp;
    final SharedReceiveQueue[] srq;
    /** Every record's work request (a receive's and a LOCAL_ERROR's fields too): filled by the poster, read by the agent. */
    final WorkRequest[] request;
    /** Each slot's own gather list, which its request's {@code sges} names when the send gathers (the lists are made once). */
    private final GatherList[] gather;
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
        qp = new DeviceQp[size];
        srq = new SharedReceiveQueue[size];
        request = new WorkRequest[size];
        gather = new GatherList[size];
        for (int i = 0; i < size; i++) {
            request[i] = new WorkRequest();
            gather[i] = new GatherList();
        }
        status = new int[size];
    }

    /**
     * Fills slot {@code i} with a SEND record of {@code wr}: every field the transport's post takes,
     * copied into the slot's {@link WorkRequest}, so that the application may change {@code wr} as
     * soon as its post returns; {@code gathers}: its SGEs are copied too, into the slot's gather
     * list, for the transport to gather from.
     */
    void putSend(int i, DeviceQp qp, SendWr wr, int ah, MemorySegment buffer, long offset, int length, boolean signaled, boolean gathers) {
        op[i] = SEND;
        this.qp[i] = qp;
        fill(request[i], wr, ah, buffer, offset, length, signaled, gathers ? gather[i] : null);
    }

    /**
     * Fills {@code r} from {@code wr} (its data at {@code offset} of {@code buffer}, {@code length}
     * bytes; {@code ah}: its address handle, 0 for a connected QP); when {@code gather} is not null,
     * with the SGEs of {@code wr} copied into it, which {@code r} then names. The one mapping from
     * the application's work request to the transport's, for a slot and for the dataplane's served
     * path alike.
     */
    static void fill(WorkRequest r, SendWr wr, int ah, MemorySegment buffer, long offset, int length, boolean signaled,
                     GatherList gather) {
        r.wrId = wr.wrId;
        r.ah = ah;
        r.destQpn = wr.remoteQpn;
        r.qkey = wr.remoteQkey;
        r.remoteSrqn = wr.remoteSrqn;
        r.buffer = buffer;
        r.offset = offset;
        r.length = length;
        r.opcode = wr.opcode;
        r.immediate = wr.immediate;
        r.remoteAddress = wr.remoteAddress;
        r.rkey = wr.rkey;
        r.compareOrAdd = wr.compareAdd;
        r.swap = wr.swap;
        r.signaled = signaled;
        r.sges = null;
        if (gather != null) {
            gather.clear();
            for (int k = 0; k < wr.numSge; k++) {
                gather.add(wr.sges[k].segment, wr.sges[k].offset, wr.sges[k].length);
            }
            r.sges = gather;
        }
    }

    /**
     * Fills slot {@code i} with a record of kind {@code op} that is not a SEND (a receive for
     * {@code qp} or {@code srq}, with its lkey in the key field, or a LOCAL_ERROR with its status).
     */
    void putOther(int i, int op, DeviceQp qp, SharedReceiveQueue srq, long wrId, MemorySegment buffer, long offset, int length, int key,
                  int status) {
        this.op[i] = op;
        this.qp[i] = qp;
        this.srq[i] = srq;
        this.status[i] = status;
        WorkRequest r = request[i].clear();
        r.wrId = wrId;
        r.buffer = buffer;
        r.offset = offset;
        r.length = length;
        r.rkey = key;
    }

    /** Lets go of what slot {@code i} refers to (a drained slot's buffer and QP are not kept alive by the ring). */
    void clear(int i) {
        if (request[i].sges != null) {
            gather[i].clear();
        }
        request[i].clear();
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
