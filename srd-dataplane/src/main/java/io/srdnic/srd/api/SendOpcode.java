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

    private SendOpcode() {
    }

    public static boolean isRdma(int opcode) {
        return opcode == RDMA_WRITE || opcode == RDMA_WRITE_WITH_IMM || opcode == RDMA_READ;
    }

    public static boolean isValid(int opcode) {
        return opcode >= SEND && opcode <= RDMA_READ;
    }

    /** The completion opcode of a send work request of this opcode. */
    public static int completionOpcode(int opcode) {
        return switch (opcode) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            default -> WcOpcode.SEND;
        };
    }
}
