package io.srdnic.srd.api;

/** What a completion completes. */
public final class WcOpcode {
    public static final int SEND = 0;
    public static final int RECV = 1;
    public static final int RECV_WITH_IMM = 2;
    public static final int RDMA_WRITE = 3;
    public static final int RDMA_READ = 4;
    /** A receive consumed by an RDMA WRITE with immediate: the length is the write's, the data is in the responder's region. */
    public static final int RECV_RDMA_WITH_IMM = 5;
    /** An atomic compare-and-swap completed: the original remote value is in its local buffer (IBV_WC_COMP_SWAP). */
    public static final int COMP_SWAP = 6;
    /** An atomic fetch-and-add completed: the original remote value is in its local buffer (IBV_WC_FETCH_ADD). */
    public static final int FETCH_ADD = 7;

    private WcOpcode() {
    }

    public static String name(int opcode) {
        return switch (opcode) {
            case SEND -> "SEND";
            case RECV -> "RECV";
            case RECV_WITH_IMM -> "RECV_WITH_IMM";
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_READ -> "RDMA_READ";
            case RECV_RDMA_WITH_IMM -> "RECV_RDMA_WITH_IMM";
            case COMP_SWAP -> "COMP_SWAP";
            case FETCH_ADD -> "FETCH_ADD";
            default -> "opcode" + opcode;
        };
    }
}
