package io.srdnic.srd.transport.port;

import java.lang.foreign.MemorySegment;

/**
 * One send work request as the transport takes it (ibv_send_wr's shape): what a post names, in one
 * reusable object the caller fills and hands to {@code TransportDevice.post} once, instead of 10 to 14
 * positional arguments. Made once and refilled per post (its setters return it:
 * {@code wr.clear().wrId(id).opcode(op).buffer(b, 0, n)}), so posting allocates nothing; the
 * transport copies what it keeps (an RC send-queue slot takes the gather list's entries), so the
 * caller may refill it as soon as the post returns. Which fields a post reads depends on the QP
 * type and opcode: SRD and UD name their destination ({@link #ah}, {@link #destQpn},
 * {@link #qkey}), SRC the responder's SRQ ({@link #remoteSrqn}), RDMA and atomics the remote
 * memory, atomics their operands; a request with a gather list {@link #sges} (RC and SRC SEND or
 * WRITE) sends its entries instead of {@link #buffer}.
 */
public final class WorkRequest {
    public long wrId;
    /** A {@code SendOpcode}. */
    public int opcode;
    public MemorySegment buffer;
    public long offset;
    public int length;
    public int immediate;
    public boolean signaled;
    /** SRD and UD: the address handle, QP number and Q_Key of the destination. */
    public int ah;
    public int destQpn;
    public int qkey;
    /** SRC: the responder's SRC SRQ number (1..0xFFFFFF). */
    public int remoteSrqn;
    /** RDMA and atomics: the remote memory. */
    public long remoteAddress;
    public int rkey;
    /** Atomics: the operands (compare or add, swap). */
    public long compareOrAdd;
    public long swap;
    /**
     * RC and SRC SEND or WRITE of several SGEs: the entries, in order, {@link #length} bytes in all
     * (the caller's list, read during the post only); null when {@link #buffer} is the message.
     */
    public GatherList sges;

    /** The id the request's completion carries. */
    public WorkRequest wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** What the request does: a {@code SendOpcode}. */
    public WorkRequest opcode(int opcode) {
        this.opcode = opcode;
        return this;
    }

    /** The local memory: {@code length} bytes at {@code offset} in {@code buffer} (an atomic's original value lands there). */
    public WorkRequest buffer(MemorySegment buffer, long offset, int length) {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        return this;
    }

    /** The immediate data of a SEND or WRITE with immediate. */
    public WorkRequest immediate(int immediate) {
        this.immediate = immediate;
        return this;
    }

    /** Whether the request completes with a work completion when it succeeds (one that fails always does). */
    public WorkRequest signaled(boolean signaled) {
        this.signaled = signaled;
        return this;
    }

    /** SRD and UD: the destination, by address handle, QP number and Q_Key. */
    public WorkRequest to(int ah, int destQpn, int qkey) {
        this.ah = ah;
        this.destQpn = destQpn;
        this.qkey = qkey;
        return this;
    }

    /** SRC: the responder's SRC SRQ number. */
    public WorkRequest remoteSrqn(int remoteSrqn) {
        this.remoteSrqn = remoteSrqn;
        return this;
    }

    /** RDMA and atomics: the remote memory, by address and the key of the peer's region. */
    public WorkRequest remote(long remoteAddress, int rkey) {
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        return this;
    }

    /** Atomics: the operands (ibv_send_wr.wr.atomic's compare_add and swap; FETCH_ADD reads only the first). */
    public WorkRequest operands(long compareOrAdd, long swap) {
        this.compareOrAdd = compareOrAdd;
        this.swap = swap;
        return this;
    }

    /** Forgets the last request (the memory it named included), so that a refill starts from zero. */
    public WorkRequest clear() {
        wrId = 0;
        opcode = 0;
        buffer = null;
        offset = 0;
        length = 0;
        immediate = 0;
        signaled = false;
        ah = 0;
        destQpn = 0;
        qkey = 0;
        remoteSrqn = 0;
        remoteAddress = 0;
        rkey = 0;
        compareOrAdd = 0;
        swap = 0;
        sges = null;
        return this;
    }
}
