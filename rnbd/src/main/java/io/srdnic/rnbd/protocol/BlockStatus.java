package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;

/**
 * RNBD_MSG_BLOCK_STATUS: srdnic's own message (Linux's protocol 2.0 has no allocation query;
 * docs/rnbd.md): which parts of a range hold data, which are holes. Laid out as {@link Io} (its
 * rw and prio 0), so its fields are read with Io's accessors: device_id, sector, bi_size (bytes,
 * whole sectors). Sent as an RTRS read, whose buffer the server fills with a
 * {@link BlockStatusRsp}; its length bounds how many extents come back.
 */
public final class BlockStatus {
    public static final int LENGTH = Io.LENGTH;

    private BlockStatus() {
    }

    public static void write(MemorySegment s, long at, int deviceId, long sector, int bytes) {
        Io.write(s, at, Rnbd.MSG_BLOCK_STATUS, deviceId, sector, 0, bytes);
    }

    /** Whether {@code length} bytes at {@code at} are a BLOCK_STATUS message (its range is checked by the server against the device). */
    public static boolean check(MemorySegment s, long at, int length) {
        return length >= LENGTH && Wire.u16(s, at) == Rnbd.MSG_BLOCK_STATUS;
    }
}
