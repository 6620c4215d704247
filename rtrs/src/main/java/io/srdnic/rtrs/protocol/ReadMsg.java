package io.srdnic.rtrs.protocol;

import java.lang.foreign.MemorySegment;

/**
 * RTRS_MSG_READ (struct rtrs_msg_rdma_read), after the user header at the start of a server
 * chunk: {@code le16 type, le16 usr_len, le16 flags, le16 sg_cnt, desc[sg_cnt]} with each desc
 * {@code le64 addr, le32 key, le32 len}: the client's buffer the server RDMA-WRITEs the data into.
 */
public final class ReadMsg {
    public static final int HEADER = 8;
    /** RTRS_MSG_NEED_INVAL_F: answer with IO_RSP_W_INV (there is no memory window to invalidate here). */
    public static final int NEED_INVAL = 1;

    private ReadMsg() {
    }

    public static int length(int descs) {
        return HEADER + InfoRsp.DESC * descs;
    }

    /** A read with one desc: the client buffer of {@code length} bytes at {@code address}, {@code key}. */
    public static void write(MemorySegment s, long at, int userHeaderLength, int flags, long address, int key, int length) {
        Wire.u16(s, at, MsgType.READ);
        Wire.u16(s, at + 2, userHeaderLength);
        Wire.u16(s, at + 4, flags);
        Wire.u16(s, at + 6, 1);
        s.set(Wire.LE64, at + 8, address);
        s.set(Wire.LE32, at + 16, key);
        s.set(Wire.LE32, at + 20, length);
    }

    public static int userHeaderLength(MemorySegment s, long at) {
        return Wire.u16(s, at + 2);
    }

    public static int flags(MemorySegment s, long at) {
        return Wire.u16(s, at + 4);
    }

    public static int descs(MemorySegment s, long at) {
        return Wire.u16(s, at + 6);
    }

    public static long address(MemorySegment s, long at) {
        return s.get(Wire.LE64, at + 8);
    }

    public static int key(MemorySegment s, long at) {
        return s.get(Wire.LE32, at + 16);
    }

    public static int length(MemorySegment s, long at) {
        return s.get(Wire.LE32, at + 20);
    }
}
