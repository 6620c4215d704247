package io.srdnic.srd.wire;

/** SRD packet types: the low four bits of the first header byte. */
public final class PacketType {
    /** A message carried by SEND. */
    public static final int SEND = 1;
    /** A message carried by SEND with 32 bits of immediate data. */
    public static final int SEND_WITH_IMM = 2;
    /** One segment of an RDMA WRITE: an {@link RdmaHeader} says where its data lands. */
    public static final int RDMA_WRITE = 3;
    /** An RDMA READ request: an {@link RdmaHeader} says what to read; the immediate field carries the requester's read token. */
    public static final int RDMA_READ = 4;
    /** Cumulative PSN, selective-ack bitmap and drop indications. */
    public static final int ACK = 5;
    /** Keepalive / path probe; answered by PROBE_REPLY on the same path. */
    public static final int PROBE = 6;
    public static final int PROBE_REPLY = 7;
    /** The last segment of an RDMA WRITE with immediate: it lands like RDMA_WRITE, then consumes a receive that carries the immediate. */
    public static final int RDMA_WRITE_WITH_IMM = 8;
    /** One segment of the data an RDMA READ asked for: a {@link ReadResponseHeader} says which read and where in it. */
    public static final int READ_RESPONSE = 9;
    /**
     * RC only: an atomic compare-and-swap request; an {@link AtomicHeader} names the word and the
     * operands, the immediate field carries the requester's token, and a READ_RESPONSE of 8 bytes
     * answers with the word's original value.
     */
    public static final int ATOMIC_CMP_SWAP = 10;
    /** RC only: an atomic fetch-and-add request, carried and answered as {@link #ATOMIC_CMP_SWAP}. */
    public static final int ATOMIC_FETCH_ADD = 11;
    /** The highest type defined: those above it (up to {@link #MAX_TYPE_CODE}) are UNKNOWN_TYPE. */
    public static final int MAX = ATOMIC_FETCH_ADD;
    /** The largest value the four type bits hold. */
    public static final int MAX_TYPE_CODE = 15;

    private PacketType() {
    }

    /** Whether packets of this type carry a PSN, are acknowledged and may carry a payload. */
    public static boolean isData(int type) {
        return (type >= SEND && type <= RDMA_READ) || (type >= RDMA_WRITE_WITH_IMM && type <= ATOMIC_FETCH_ADD);
    }

    /** The bytes of extended header between the SRD header and the data of a packet of this type (counted in its payload length). */
    public static int extendedHeaderLength(int type) {
        return switch (type) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ -> RdmaHeader.LENGTH;
            case READ_RESPONSE -> ReadResponseHeader.LENGTH;
            case ATOMIC_CMP_SWAP, ATOMIC_FETCH_ADD -> AtomicHeader.LENGTH;
            default -> 0;
        };
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
            case RDMA_WRITE_WITH_IMM -> "RDMA_WRITE_WITH_IMM";
            case READ_RESPONSE -> "READ_RESPONSE";
            case ATOMIC_CMP_SWAP -> "ATOMIC_CMP_SWAP";
            case ATOMIC_FETCH_ADD -> "ATOMIC_FETCH_ADD";
            default -> "type" + type;
        };
    }
}
