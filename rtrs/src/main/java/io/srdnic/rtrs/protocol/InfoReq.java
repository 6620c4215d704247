package io.srdnic.rtrs.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * RTRS_MSG_INFO_REQ (struct rtrs_msg_info_req), SENT on a path's service connection once all its
 * connections are up: {@code 0 le16 type, 2 u8 name[255] (NUL-terminated), 257 u8 reserved[15]}.
 */
public final class InfoReq {
    public static final int NAME_MAX = 255;
    public static final int LENGTH = 2 + NAME_MAX + 15;

    public static final int OK = 0;
    public static final int SHORT = 1;
    public static final int BAD_TYPE = 2;
    /** No NUL inside name[255], or an empty name. */
    public static final int BAD_NAME = 3;
    /** A '/' or '.' in the name: refused, as Linux refuses them in a path name (it names sysfs entries). */
    public static final int FORBIDDEN_CHARACTER = 4;

    private InfoReq() {
    }

    /** Writes the request for {@code name} (ASCII, 1..254 bytes; the caller checked). */
    public static void write(MemorySegment s, long at, byte[] name) {
        if (name.length == 0 || name.length >= NAME_MAX) {
            throw new IllegalArgumentException("a session name is 1.." + (NAME_MAX - 1) + " bytes, was " + name.length);
        }
        Wire.zero(s, at, LENGTH);
        Wire.u16(s, at, MsgType.INFO_REQ);
        MemorySegment.copy(name, 0, s, ValueLayout.JAVA_BYTE, at + 2, name.length);
    }

    public static int check(MemorySegment s, long at, int length) {
        if (length < LENGTH) {
            return SHORT;
        }
        if (Wire.u16(s, at) != MsgType.INFO_REQ) {
            return BAD_TYPE;
        }
        int n = nameLength(s, at);
        if (n <= 0) {
            return BAD_NAME;
        }
        for (int i = 0; i < n; i++) {
            byte b = s.get(ValueLayout.JAVA_BYTE, at + 2 + i);
            if (b == '/' || b == '.') {
                return FORBIDDEN_CHARACTER;
            }
        }
        return OK;
    }

    /** Bytes before the first NUL of name[], or -1 when there is none. */
    public static int nameLength(MemorySegment s, long at) {
        for (int i = 0; i < NAME_MAX; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, at + 2 + i) == 0) {
                return i;
            }
        }
        return -1;
    }

    /** The name of a checked request (control path: makes a String). */
    public static String name(MemorySegment s, long at) {
        byte[] b = new byte[nameLength(s, at)];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, at + 2, b, 0, b.length);
        return new String(b, StandardCharsets.US_ASCII);
    }
}
