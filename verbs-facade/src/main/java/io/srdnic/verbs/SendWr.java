package io.srdnic.verbs;

/**
 * A send work request (ibv_send_wr), made once and reused: set its fields, post it,
 * set them again. Posting copies what it needs, so the object may change as soon as post returns.
 */
public final class SendWr {
    public static final int SIGNALED = 1;
    public static final int INLINE = 2;

    /** The opcodes (io.srdnic.srd.api.SendOpcode's values). UD takes the sends only; SRD those and RDMA; RC all seven. */
    public static final int OP_SEND = 0;
    public static final int OP_SEND_WITH_IMM = 1;
    /** Writes the SGE's bytes to {@link #rdma remote memory}; up to queryDevice().maxRdmaSize(). */
    public static final int OP_RDMA_WRITE = 2;
    /** An RDMA WRITE whose completion at the responder (RECV_RDMA_WITH_IMM, consuming a receive) carries the immediate. */
    public static final int OP_RDMA_WRITE_WITH_IMM = 3;
    /** Reads remote memory into the SGE's buffer, whose region needs Access.LOCAL_WRITE. */
    public static final int OP_RDMA_READ = 4;
    /**
     * RC only: compares the remote 64-bit word {@link #atomic} names with its compare operand and,
     * if equal, writes its swap operand there, atomically; the word's original value lands in the
     * SGE, which must be 8 bytes of a region with Access.LOCAL_WRITE (in host byte order, as the
     * word is at the peer). The remote address must be 8-byte aligned.
     */
    public static final int OP_ATOMIC_CMP_SWAP = 5;
    /**
     * RC only: adds {@link #atomic}'s operand to the remote 64-bit word atomically; the original
     * value lands in the SGE, as for CMP_SWAP.
     */
    public static final int OP_ATOMIC_FETCH_ADD = 6;

    final Sge[] sges;
    int numSge;
    long wrId;
    int opcode = OP_SEND;
    int flags = SIGNALED;
    int immediate;
    AddressHandle ah;
    int remoteQpn;
    int remoteQkey;
    long remoteAddress;
    int rkey;
    long compareAdd;
    long swap;
    int remoteSrqn;

    public SendWr(int maxSge) {
        if (maxSge < 1) {
            throw new IllegalArgumentException("a work request needs room for at least one SGE");
        }
        sges = new Sge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sges[i] = new Sge();
        }
    }

    public SendWr() {
        this(1);
    }

    /** The i-th scatter/gather element, to fill in. */
    public Sge sge(int i) {
        return sges[i];
    }

    public SendWr numSge(int n) {
        if (n < 0 || n > sges.length) {
            throw new IllegalArgumentException("numSge " + n + " outside 0.." + sges.length);
        }
        this.numSge = n;
        return this;
    }

    public SendWr wrId(long id) {
        this.wrId = id;
        return this;
    }

    public SendWr opcode(int op) {
        this.opcode = op;
        return this;
    }

    public SendWr flags(int f) {
        this.flags = f;
        return this;
    }

    public SendWr immediate(int imm) {
        this.immediate = imm;
        return this;
    }

    /** The destination: an address handle, the remote QP number and its Q_Key (as UD). */
    public SendWr destination(AddressHandle handle, int qpn, int qkey) {
        this.ah = handle;
        this.remoteQpn = qpn;
        this.remoteQkey = qkey;
        return this;
    }

    /**
     * RDMA: the remote memory (the address in the remote region, as its owner's
     * MemoryRegion.segment().address() + offset) and its rkey.
     */
    public SendWr rdma(long address, int key) {
        this.remoteAddress = address;
        this.rkey = key;
        return this;
    }

    /**
     * Atomics: the remote word (its address in the peer's region, 8-byte aligned, and the region's
     * rkey, which needs Access.REMOTE_ATOMIC) and the operands, as ibv_send_wr.wr.atomic has them:
     * CMP_SWAP compares with {@code compareAdd} and writes {@code swap}; FETCH_ADD adds
     * {@code compareAdd} ({@code swap} unused).
     */
    public SendWr atomic(long address, int key, long compareAdd, long swap) {
        this.remoteAddress = address;
        this.rkey = key;
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    /**
     * XRC_SEND: the remote XRC SRQ the message is for (ibv_send_wr.qp_type.xrc.remote_srqn): the
     * {@link SharedReceiveQueue#srqNumber()} its owner told us. Every packet of the message carries it.
     */
    public SendWr remoteSrqn(int srqn) {
        this.remoteSrqn = srqn;
        return this;
    }

    /** The bytes the SGEs name together; see {@link #lengthsOverflow()} first. */
    int totalLength() {
        return (int) sumOfLengths();
    }

    /** Whether the SGEs' lengths add up past an int (each may lie in its region): LOCAL_LENGTH_ERROR, no message is that long. */
    boolean lengthsOverflow() {
        return sumOfLengths() > Integer.MAX_VALUE;
    }

    private long sumOfLengths() {
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            total += sges[i].length;
        }
        return total;
    }
}
