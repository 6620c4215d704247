package io.srdnic.rtrs.protocol;

/**
 * The 32-bit immediate of RTRS's RDMA messages: a 4-bit type above a 28-bit payload
 * (rtrs_to_imm). IO_REQ's payload is chunk id << memBits | offset of the message in the chunk;
 * IO_RSP's is |errno| (9 bits) << 19 | message id (19 bits). Heartbeats carry no payload.
 */
public final class Imm {
    public static final int IO_REQ = 0;
    public static final int IO_RSP = 1;
    public static final int IO_RSP_W_INV = 2;
    public static final int HB_MSG = 8;
    public static final int HB_ACK = 9;

    public static final int TYPE_BITS = 4;
    public static final int PAYLOAD_BITS = 28;
    public static final int PAYLOAD_MASK = (1 << PAYLOAD_BITS) - 1;
    static final int MSG_ID_BITS = 19;
    static final int MSG_ID_MASK = (1 << MSG_ID_BITS) - 1;
    static final int ERRNO_MASK = 0x1FF;

    private Imm() {
    }

    public static int of(int type, int payload) {
        return (type & 0xF) << PAYLOAD_BITS | payload & PAYLOAD_MASK;
    }

    public static int type(int imm) {
        return imm >>> PAYLOAD_BITS;
    }

    public static int payload(int imm) {
        return imm & PAYLOAD_MASK;
    }

    /** Bits of the IO_REQ payload that hold the offset: 28 less what a chunk id below {@code queueDepth} needs. */
    public static int memBits(int queueDepth) {
        int chunkBits = 32 - Integer.numberOfLeadingZeros(Math.max(0, queueDepth - 1));
        return PAYLOAD_BITS - chunkBits;
    }

    public static int ioReq(int chunkId, int offset, int memBits) {
        return of(IO_REQ, chunkId << memBits | offset);
    }

    public static int chunkId(int imm, int memBits) {
        return payload(imm) >>> memBits;
    }

    public static int offset(int imm, int memBits) {
        return payload(imm) & ((1 << memBits) - 1);
    }

    /** {@code errno} positive (0: success); the wire keeps its low 9 bits, as Linux's abs(errno) & 0x1ff. */
    public static int ioRsp(int msgId, int errno, boolean withInvalidate) {
        return of(withInvalidate ? IO_RSP_W_INV : IO_RSP, (Math.abs(errno) & ERRNO_MASK) << MSG_ID_BITS | msgId & MSG_ID_MASK);
    }

    public static int msgId(int imm) {
        return imm & MSG_ID_MASK;
    }

    /** The response's errno, positive (0: success). */
    public static int errno(int imm) {
        return payload(imm) >>> MSG_ID_BITS & ERRNO_MASK;
    }

    public static int heartbeat() {
        return of(HB_MSG, 0);
    }

    public static int heartbeatAck() {
        return of(HB_ACK, 0);
    }
}
