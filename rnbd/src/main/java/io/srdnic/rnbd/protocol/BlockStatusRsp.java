package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;

/**
 * RNBD_MSG_BLOCK_STATUS_RSP: the answer to a {@link BlockStatus}, in the RTRS read's buffer. The
 * extents follow each other from the asked sector on, none empty, together at most the asked
 * range; fewer than the range when the buffer held no more (the client asks again from where they
 * end). States are NBD's base:allocation bits: 1 hole, 2 reads as zeroes, 0 data.
 * <pre>
 *  0 hdr   4 le32 count   8 (le32 length in bytes, le32 state) x count
 * </pre>
 */
public final class BlockStatusRsp {
    public static final int HEADER = 8;
    public static final int EXTENT = 8;
    /** The state bits an extent may carry (NBD_STATE_HOLE | NBD_STATE_ZERO). */
    public static final int STATES = 3;

    private BlockStatusRsp() {
    }

    /** The extents a buffer of {@code length} bytes holds. */
    public static int capacity(long length) {
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, (length - HEADER) / EXTENT));
    }

    /** Writes the header, {@code count} extents having been put. */
    public static void header(MemorySegment s, long at, int count) {
        Wire.header(s, at, Rnbd.MSG_BLOCK_STATUS_RSP, HEADER);
        s.set(Wire.LE32, at + 4, count);
    }

    public static void extent(MemorySegment s, long at, int index, long length, int state) {
        long e = at + HEADER + (long) index * EXTENT;
        s.set(Wire.LE32, e, (int) length);
        s.set(Wire.LE32, e + 4, state);
    }

    /** Whether {@code length} bytes at {@code at} start an answer whose count fits them. */
    public static boolean check(MemorySegment s, long at, int length) {
        if (length < HEADER || Wire.u16(s, at) != Rnbd.MSG_BLOCK_STATUS_RSP) {
            return false;
        }
        long count = count(s, at);
        return count > 0 && count <= capacity(length);
    }

    /** The extent count, unsigned. */
    public static long count(MemorySegment s, long at) {
        return Integer.toUnsignedLong(s.get(Wire.LE32, at + 4));
    }

    /** Extent {@code index}'s length in bytes, unsigned. */
    public static long length(MemorySegment s, long at, int index) {
        return Integer.toUnsignedLong(s.get(Wire.LE32, at + HEADER + (long) index * EXTENT));
    }

    public static int state(MemorySegment s, long at, int index) {
        return s.get(Wire.LE32, at + HEADER + (long) index * EXTENT + 4);
    }
}
