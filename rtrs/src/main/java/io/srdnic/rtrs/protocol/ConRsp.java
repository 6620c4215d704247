package io.srdnic.rtrs.protocol;

import java.lang.foreign.MemorySegment;

/**
 * RTRS_MSG_CONN_RSP (struct rtrs_msg_conn_rsp): 56 bytes of private data on the server's accept,
 * or on its reject with only magic, version and errno set.
 * <pre>
 *  0 le16 magic   2 le16 version   4 le16 errno (negative, as a signed 16-bit value)   6 le16 queue_depth
 *  8 le32 max_io_size   12 le32 max_hdr_size   16 le32 flags   20..55 reserved (zero)
 * </pre>
 */
public final class ConRsp {
    public static final int LENGTH = 56;

    public static final int OK = 0;
    public static final int SHORT = 1;
    public static final int BAD_MAGIC = 2;
    public static final int BAD_MAJOR = 3;

    private ConRsp() {
    }

    /** An accept's response: errno 0 and the session's limits. */
    public static void writeAccept(MemorySegment s, long at, int queueDepth, int maxIoSize, int maxHdrSize, int flags) {
        header(s, at, 0);
        Wire.u16(s, at + 6, queueDepth);
        s.set(Wire.LE32, at + 8, maxIoSize);
        s.set(Wire.LE32, at + 12, maxHdrSize);
        s.set(Wire.LE32, at + 16, flags);
    }

    /** A reject's response: {@code errno} (positive) goes on the wire negated, as rtrs_rdma_do_reject writes it. */
    public static void writeReject(MemorySegment s, long at, int errno) {
        header(s, at, errno);
    }

    private static void header(MemorySegment s, long at, int errno) {
        Wire.zero(s, at, LENGTH);
        Wire.u16(s, at, Rtrs.MAGIC);
        Wire.u16(s, at + 2, Rtrs.VERSION);
        Wire.u16(s, at + 4, -errno);
    }

    /** The client's checks of a response (rtrs_rdma_conn_established's, before errno). */
    public static int check(MemorySegment s, long at, int length) {
        if (length < LENGTH) {
            return SHORT;
        }
        if (Wire.u16(s, at) != Rtrs.MAGIC) {
            return BAD_MAGIC;
        }
        if (Wire.u16(s, at + 2) >> 8 != Rtrs.VERSION_MAJOR) {
            return BAD_MAJOR;
        }
        return OK;
    }

    /** The errno, positive (0: accepted). */
    public static int errno(MemorySegment s, long at) {
        return -s.get(Wire.LE16, at + 4);
    }

    public static int queueDepth(MemorySegment s, long at) {
        return Wire.u16(s, at + 6);
    }

    public static int maxIoSize(MemorySegment s, long at) {
        return s.get(Wire.LE32, at + 8);
    }

    public static int maxHdrSize(MemorySegment s, long at) {
        return s.get(Wire.LE32, at + 12);
    }

    public static int flags(MemorySegment s, long at) {
        return s.get(Wire.LE32, at + 16);
    }
}
