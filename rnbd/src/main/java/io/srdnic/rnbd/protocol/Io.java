package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;

/**
 * RNBD_MSG_IO (struct rnbd_msg_io): one block request.
 * <pre>
 *  0 hdr   4 le32 device_id   8 le64 sector   16 le32 rw (op in the low 8 bits, flags above)
 * 20 le32 bi_size (bytes)   24 le16 prio   26..27 padding
 * </pre>
 * A READ goes as an RTRS read of bi_size bytes, a WRITE as an RTRS write of bi_size bytes of data;
 * FLUSH, DISCARD and WRITE_ZEROES as writes without data, DISCARD's and WRITE_ZEROES' range in
 * bi_size.
 */
public final class Io {
    public static final int LENGTH = 28;

    private Io() {
    }

    public static void write(MemorySegment s, long at, int deviceId, long sector, int rw, int bytes) {
        write(s, at, Rnbd.MSG_IO, deviceId, sector, rw, bytes);
    }

    /** An IO-shaped message of another type (srdnic's {@link BlockStatus}). */
    static void write(MemorySegment s, long at, int type, int deviceId, long sector, int rw, int bytes) {
        Wire.header(s, at, type, LENGTH);
        s.set(Wire.LE32, at + 4, deviceId);
        s.set(Wire.LE64, at + 8, sector);
        s.set(Wire.LE32, at + 16, rw);
        s.set(Wire.LE32, at + 20, bytes);
    }

    /** Whether {@code length} bytes at {@code at} are an IO message (its fields are checked by the server against the device). */
    public static boolean check(MemorySegment s, long at, int length) {
        return length >= LENGTH && Wire.u16(s, at) == Rnbd.MSG_IO;
    }

    public static int deviceId(MemorySegment s, long at) {
        return s.get(Wire.LE32, at + 4);
    }

    /** The first sector, as sent: may be negative (a u64 past Long.MAX_VALUE), which the server refuses. */
    public static long sector(MemorySegment s, long at) {
        return s.get(Wire.LE64, at + 8);
    }

    public static int rw(MemorySegment s, long at) {
        return s.get(Wire.LE32, at + 16);
    }

    /** bi_size as an unsigned value. */
    public static long bytes(MemorySegment s, long at) {
        return Integer.toUnsignedLong(s.get(Wire.LE32, at + 20));
    }
}
