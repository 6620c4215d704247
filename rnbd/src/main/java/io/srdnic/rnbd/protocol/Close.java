package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;

/** RNBD_MSG_CLOSE (struct rnbd_msg_close): gives a device id back. {@code 0 hdr   4 le32 device_id}. Sent as a write without data. */
public final class Close {
    public static final int LENGTH = 8;

    private Close() {
    }

    public static void write(MemorySegment s, long at, int deviceId) {
        Wire.header(s, at, Rnbd.MSG_CLOSE, LENGTH);
        s.set(Wire.LE32, at + 4, deviceId);
    }

    public static boolean check(MemorySegment s, long at, int length) {
        return length >= LENGTH && Wire.u16(s, at) == Rnbd.MSG_CLOSE;
    }

    public static int deviceId(MemorySegment s, long at) {
        return s.get(Wire.LE32, at + 4);
    }
}
