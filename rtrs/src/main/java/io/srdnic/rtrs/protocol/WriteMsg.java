package io.srdnic.rtrs.protocol;

import java.lang.foreign.MemorySegment;

/**
 * RTRS_MSG_WRITE (struct rtrs_msg_rdma_write), the tail of a write's RDMA WRITE into a server
 * chunk: {@code [data][user header][le16 type, le16 usr_len]}. The immediate's offset points at
 * the message: data length = offset - usr_len.
 */
public final class WriteMsg {
    public static final int LENGTH = 4;

    private WriteMsg() {
    }

    public static void write(MemorySegment s, long at, int userHeaderLength) {
        Wire.u16(s, at, MsgType.WRITE);
        Wire.u16(s, at + 2, userHeaderLength);
    }

    public static int userHeaderLength(MemorySegment s, long at) {
        return Wire.u16(s, at + 2);
    }
}
