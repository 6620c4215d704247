package io.srdnic.srd.wire;

/** SRD packet types: the low four bits of the first header byte. */
public final class PacketType {
    /** A message carried by SEND. */
    public static final int SEND = 1;
    /** A message carried by SEND with 32 bits of immediate data. */
    public static final int SEND_WITH_IMM = 2;
    /** Reserved for RDMA WRITE: parsed, answered with REMOTE_INVALID_REQUEST until supported. */
    public static final int RDMA_WRITE = 3;
    /** Reserved for RDMA READ: parsed, answered with REMOTE_INVALID_REQUEST until supported. */
    public static final int RDMA_READ = 4;
    /** Cumulative PSN, selective-ack bitmap and drop indications. */
    public static final int ACK = 5;
    /** Keepalive / path probe; answered by PROBE_REPLY on the same path. */
    public static final int PROBE = 6;
    public static final int PROBE_REPLY = 7;

    private PacketType() {
    }

    public static boolean isData(int type) {
        return type >= SEND && type <= RDMA_READ;
    }

    public static String name(int type) {
        return switch (type) {
            case SEND -> "SEND";
            case SEND_WITH_IMM -> "SEND_WITH_IMM";
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_READ -> "RDMA_READ";
            case ACK -> "ACK";
            case PROBE -> "PROBE";
            case PROBE_REPLY -> "PROBE_REPLY";
            default -> "type" + type;
        };
    }
}
