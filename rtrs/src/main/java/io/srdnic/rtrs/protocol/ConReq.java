package io.srdnic.rtrs.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * RTRS_MSG_CON_REQ (struct rtrs_msg_conn_req): the 56 bytes of CM private data a client's
 * rdma_connect carries for each connection of a path.
 * <pre>
 *  0 u8  __cma_version (0)   1 u8 __ip_version (0)   2 le16 magic   4 le16 version
 *  6 le16 cid   8 le16 cid_num   10 le16 recon_cnt
 * 12 uuid sess_uuid (the path's)   28 uuid paths_uuid (the session's)
 * 44 u8 first_conn:1, reserved:7   45..55 reserved (zero)
 * </pre>
 */
public final class ConReq {
    public static final int LENGTH = 56;

    /** {@link #check} answers: OK, or why the server refuses (each refused with ECONNRESET, as Linux). */
    public static final int OK = 0;
    public static final int SHORT = 1;
    public static final int BAD_MAGIC = 2;
    public static final int BAD_MAJOR = 3;
    public static final int TOO_MANY_CONNECTIONS = 4;
    public static final int BAD_CID = 5;

    private ConReq() {
    }

    public static void write(MemorySegment s, long at, int cid, int cidNum, int reconCnt, long pathUuidHi, long pathUuidLo,
                             long sessionUuidHi, long sessionUuidLo, boolean firstConn) {
        Wire.zero(s, at, LENGTH);
        Wire.u16(s, at + 2, Rtrs.MAGIC);
        Wire.u16(s, at + 4, Rtrs.VERSION);
        Wire.u16(s, at + 6, cid);
        Wire.u16(s, at + 8, cidNum);
        Wire.u16(s, at + 10, reconCnt);
        s.set(Wire.BE64, at + 12, pathUuidHi);
        s.set(Wire.BE64, at + 20, pathUuidLo);
        s.set(Wire.BE64, at + 28, sessionUuidHi);
        s.set(Wire.BE64, at + 36, sessionUuidLo);
        s.set(ValueLayout.JAVA_BYTE, at + 44, (byte) (firstConn ? 1 : 0));
    }

    /** The server's checks of rtrs_rdma_connect, in its order, over {@code length} received bytes. */
    public static int check(MemorySegment s, long at, int length) {
        if (length < LENGTH) {
            return SHORT;
        }
        if (Wire.u16(s, at + 2) != Rtrs.MAGIC) {
            return BAD_MAGIC;
        }
        if (Wire.u16(s, at + 4) >> 8 != Rtrs.VERSION_MAJOR) {
            return BAD_MAJOR;
        }
        if (cidNum(s, at) > Rtrs.MAX_CONNECTIONS) {
            return TOO_MANY_CONNECTIONS;
        }
        if (cid(s, at) >= cidNum(s, at)) {
            return BAD_CID;
        }
        return OK;
    }

    public static int version(MemorySegment s, long at) {
        return Wire.u16(s, at + 4);
    }

    public static int cid(MemorySegment s, long at) {
        return Wire.u16(s, at + 6);
    }

    public static int cidNum(MemorySegment s, long at) {
        return Wire.u16(s, at + 8);
    }

    public static int reconCnt(MemorySegment s, long at) {
        return Wire.u16(s, at + 10);
    }

    public static long pathUuidHi(MemorySegment s, long at) {
        return s.get(Wire.BE64, at + 12);
    }

    public static long pathUuidLo(MemorySegment s, long at) {
        return s.get(Wire.BE64, at + 20);
    }

    public static long sessionUuidHi(MemorySegment s, long at) {
        return s.get(Wire.BE64, at + 28);
    }

    public static long sessionUuidLo(MemorySegment s, long at) {
        return s.get(Wire.BE64, at + 36);
    }

    public static boolean firstConn(MemorySegment s, long at) {
        return (s.get(ValueLayout.JAVA_BYTE, at + 44) & 1) != 0;
    }
}
