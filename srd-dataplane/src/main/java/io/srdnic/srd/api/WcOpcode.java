package io.srdnic.srd.api;

/** What a completion completes. */
public final class WcOpcode {
    public static final int SEND = 0;
    public static final int RECV = 1;
    public static final int RECV_WITH_IMM = 2;

    private WcOpcode() {
    }

    public static String name(int opcode) {
        return switch (opcode) {
            case SEND -> "SEND";
            case RECV -> "RECV";
            case RECV_WITH_IMM -> "RECV_WITH_IMM";
            default -> "opcode" + opcode;
        };
    }
}
