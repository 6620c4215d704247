package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * RNBD_MSG_OPEN (struct rnbd_msg_open): a device by name and the access wanted.
 * <pre>
 *  0 hdr   4 u8 access_mode   5 u8 reserved   6 dev_name[255], NUL-padded   261..263 reserved
 * </pre>
 * Sent as an RTRS read whose data is the {@link OpenRsp}.
 */
public final class Open {
    public static final int LENGTH = 264;
    private static final int NAME = 6;

    public static final int OK = 0;
    public static final int SHORT = 1;
    public static final int BAD_TYPE = 2;
    public static final int BAD_MODE = 3;
    public static final int BAD_NAME = 4;

    private Open() {
    }

    /** Writes an OPEN; the name is 1..254 ASCII bytes (one NUL at least ends the field). */
    public static void write(MemorySegment s, long at, int accessMode, String deviceName) {
        byte[] name = deviceName.getBytes(StandardCharsets.US_ASCII);
        if (name.length == 0 || name.length >= Rnbd.NAME_MAX) {
            throw new IllegalArgumentException("a device name is 1.." + (Rnbd.NAME_MAX - 1) + " bytes: " + deviceName);
        }
        Wire.header(s, at, Rnbd.MSG_OPEN, LENGTH);
        Wire.u8(s, at + 4, accessMode);
        MemorySegment.copy(name, 0, s, ValueLayout.JAVA_BYTE, at + NAME, name.length);
    }

    /** OK, or why {@code length} bytes at {@code at} are no OPEN this server takes. */
    public static int check(MemorySegment s, long at, int length) {
        if (length < LENGTH) {
            return SHORT;
        }
        if (Wire.u16(s, at) != Rnbd.MSG_OPEN) {
            return BAD_TYPE;
        }
        if (accessMode(s, at) > Rnbd.ACCESS_MIGRATION) {
            return BAD_MODE;
        }
        int n = nameLength(s, at);
        if (n == 0 || n == Rnbd.NAME_MAX) {
            return BAD_NAME; // empty, or no NUL inside the field
        }
        for (int i = 0; i < n; i++) {
            int c = Wire.u8(s, at + NAME + i);
            if (c < 0x20 || c > 0x7e) {
                return BAD_NAME;
            }
        }
        return OK;
    }

    public static int accessMode(MemorySegment s, long at) {
        return Wire.u8(s, at + 4);
    }

    /** The name's bytes before the first NUL (NAME_MAX when there is none). */
    static int nameLength(MemorySegment s, long at) {
        int n = 0;
        while (n < Rnbd.NAME_MAX && s.get(ValueLayout.JAVA_BYTE, at + NAME + n) != 0) {
            n++;
        }
        return n;
    }

    /** The device name of a checked OPEN. */
    public static String deviceName(MemorySegment s, long at) {
        byte[] b = new byte[nameLength(s, at)];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, at + NAME, b, 0, b.length);
        return new String(b, StandardCharsets.US_ASCII);
    }
}
