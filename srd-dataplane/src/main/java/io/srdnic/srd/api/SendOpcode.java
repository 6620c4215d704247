package io.srdnic.srd.api;

/** What a send work request asks for (ibv_wr_opcode's values, as the verbs facade passes them down). */
public final class SendOpcode {
    public static final int SEND = 0;
    public static final int SEND_WITH_IMM = 1;
    /** Writes the local buffer into remote memory named by rkey and address; no receive is consumed. */
    public static final int RDMA_WRITE = 2;
    /** An RDMA WRITE whose last packet consumes a receive at the responder, which completes with the immediate. */
    public static final int RDMA_WRITE_WITH_IMM = 3;
    /** Reads remote memory named by rkey and address into the local buffer. */
    public static final int RDMA_READ = 4;
    /**
     * RC only: compares the 8 bytes at the remote address with one operand and, if equal, writes the
     * other there, in one atomic step at the responder; the original remote value lands in the
     * local 8-byte buffer either way (IBV_WR_ATOMIC_CMP_AND_SWP).
     */
    public static final int ATOMIC_CMP_SWAP = 5;
    /**
     * RC only: adds an operand to the 8 bytes at the remote address atomically; the original value
     * lands in the local buffer (IBV_WR_ATOMIC_FETCH_AND_ADD).
     */
    public static final int ATOMIC_FETCH_ADD = 6;
    /** An atomic's operand and result size: IBTA atomics act on one 64-bit word, 8-byte aligned. */
    public static final int ATOMIC_SIZE = 8;

    private SendOpcode() {
    }

    public static boolean isRdma(int opcode) {
        return opcode == RDMA_WRITE || opcode == RDMA_WRITE_WITH_IMM || opcode == RDMA_READ;
    }

    public static boolean isAtomic(int opcode) {
        return opcode == ATOMIC_CMP_SWAP || opcode == ATOMIC_FETCH_ADD;
    }

    /** Whether the request waits for data from the responder (a READ's bytes, an atomic's original value): max_rd_atomic bounds these. */
    public static boolean awaitsResponse(int opcode) {
        return opcode == RDMA_READ || isAtomic(opcode);
    }

    public static boolean isValid(int opcode) {
        return opcode >= SEND && opcode <= ATOMIC_FETCH_ADD;
    }

    /** The completion opcode of a send work request of this opcode. */
    public static int completionOpcode(int opcode) {
        return switch (opcode) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_SWAP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_ADD -> WcOpcode.FETCH_ADD;
            default -> WcOpcode.SEND;
        };
    }
}
