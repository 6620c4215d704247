package io.srdnic.rtrs.protocol;

import java.lang.foreign.MemorySegment;

/** enum rtrs_msg_types: the le16 type that opens INFO and IO messages. */
public final class MsgType {
    public static final int INFO_REQ = 0;
    public static final int INFO_RSP = 1;
    public static final int WRITE = 2;
    public static final int READ = 3;
    /** Linux's refreshed-rkey message (always_invalidate); not sent here. */
    public static final int RKEY_RSP = 4;

    /** The le16 type at {@code at}. */
    public static int of(MemorySegment s, long at) {
        return Wire.u16(s, at);
    }

    private MsgType() {
    }
}
