package io.srdnic.rtrs.protocol;

import java.lang.foreign.MemorySegment;

/**
 * RTRS_MSG_INFO_RSP (struct rtrs_msg_info_rsp): the server's chunk memory for this path.
 * {@code 0 le16 type, 2 le16 sg_cnt, 4 u8 reserved[4], 8 desc[sg_cnt]}, each desc (struct
 * rtrs_sg_desc) {@code le64 addr, le32 key, le32 len}. The client cuts the descs, in order, into
 * chunks of its chunk size: each len must be a non-zero multiple of it, and the chunks must number
 * exactly the queue depth.
 */
public final class InfoRsp {
    public static final int HEADER = 8;
    public static final int DESC = 16;

    public static final int OK = 0;
    public static final int SHORT = 1;
    public static final int BAD_TYPE = 2;
    public static final int NO_DESC = 3;
    /** sg_cnt descs do not fit the received length. */
    public static final int TRUNCATED = 4;
    /** A desc's len is 0 or not a multiple of the chunk size. */
    public static final int BAD_LENGTH = 5;
    /** The descs hold more or fewer chunks than the queue depth. */
    public static final int WRONG_CHUNK_COUNT = 6;

    private InfoRsp() {
    }

    public static int length(int descs) {
        return HEADER + DESC * descs;
    }

    public static void writeHeader(MemorySegment s, long at, int descs) {
        Wire.zero(s, at, HEADER);
        Wire.u16(s, at, MsgType.INFO_RSP);
        Wire.u16(s, at + 2, descs);
    }

    public static void writeDesc(MemorySegment s, long at, int i, long address, int key, int length) {
        long d = at + HEADER + (long) DESC * i;
        s.set(Wire.LE64, d, address);
        s.set(Wire.LE32, d + 8, key);
        s.set(Wire.LE32, d + 12, length);
    }

    /** The client's checks, for a session of {@code queueDepth} chunks of {@code chunkSize} bytes. */
    public static int check(MemorySegment s, long at, int length, int queueDepth, int chunkSize) {
        if (length < HEADER) {
            return SHORT;
        }
        if (Wire.u16(s, at) != MsgType.INFO_RSP) {
            return BAD_TYPE;
        }
        int n = descs(s, at);
        if (n == 0) {
            return NO_DESC;
        }
        if (length(n) > length) {
            return TRUNCATED;
        }
        long chunks = 0;
        for (int i = 0; i < n; i++) {
            long len = Integer.toUnsignedLong(descLength(s, at, i));
            if (len == 0 || len % chunkSize != 0) {
                return BAD_LENGTH;
            }
            chunks += len / chunkSize;
        }
        return chunks == queueDepth ? OK : WRONG_CHUNK_COUNT;
    }

    public static int descs(MemorySegment s, long at) {
        return Wire.u16(s, at + 2);
    }

    public static long descAddress(MemorySegment s, long at, int i) {
        return s.get(Wire.LE64, at + HEADER + (long) DESC * i);
    }

    public static int descKey(MemorySegment s, long at, int i) {
        return s.get(Wire.LE32, at + HEADER + (long) DESC * i + 8);
    }

    public static int descLength(MemorySegment s, long at, int i) {
        return s.get(Wire.LE32, at + HEADER + (long) DESC * i + 12);
    }
}
