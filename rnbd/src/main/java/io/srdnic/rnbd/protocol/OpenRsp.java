package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;

/**
 * RNBD_MSG_OPEN_RSP (struct rnbd_msg_open_rsp): the opened device's id on this session and its
 * geometry.
 * <pre>
 *  0 hdr   4 le32 device_id   8 le64 nsectors   16 le32 max_hw_sectors   20 le32 max_write_zeroes_sectors
 * 24 le32 max_discard_sectors   28 le32 discard_granularity   32 le32 discard_alignment
 * 36 le16 physical_block_size   38 le16 logical_block_size   40 le16 max_segments   42 le16 secure_discard
 * 44 u8 obsolete_rotational   45 u8 cache_policy   46..55 reserved
 * </pre>
 */
public final class OpenRsp {
    public static final int LENGTH = 56;

    private OpenRsp() {
    }

    /** The geometry a server reports; sizes in 512-byte sectors, block sizes in bytes. */
    public record Geometry(long sectors, int maxHwSectors, int maxWriteZeroesSectors, int maxDiscardSectors,
                           int discardGranularity, int physicalBlockSize, int logicalBlockSize, int cachePolicy) {
    }

    public static void write(MemorySegment s, long at, int deviceId, Geometry g) {
        Wire.header(s, at, Rnbd.MSG_OPEN_RSP, LENGTH);
        s.set(Wire.LE32, at + 4, deviceId);
        s.set(Wire.LE64, at + 8, g.sectors());
        s.set(Wire.LE32, at + 16, g.maxHwSectors());
        s.set(Wire.LE32, at + 20, g.maxWriteZeroesSectors());
        s.set(Wire.LE32, at + 24, g.maxDiscardSectors());
        s.set(Wire.LE32, at + 28, g.discardGranularity());
        s.set(Wire.LE32, at + 32, 0);
        Wire.u16(s, at + 36, g.physicalBlockSize());
        Wire.u16(s, at + 38, g.logicalBlockSize());
        Wire.u16(s, at + 40, 1);
        Wire.u8(s, at + 45, g.cachePolicy());
    }

    /**
     * Whether {@code length} bytes at {@code at} are an OPEN_RSP a client can use: the right type, a
     * size that fits a long in bytes, a logical block of a power of two from 512 to 4096 bytes and
     * at least one sector per IO.
     */
    public static boolean check(MemorySegment s, long at, int length) {
        if (length < LENGTH || Wire.u16(s, at) != Rnbd.MSG_OPEN_RSP) {
            return false;
        }
        long sectors = s.get(Wire.LE64, at + 8);
        int lbs = Wire.u16(s, at + 38);
        return sectors >= 0 && sectors <= Long.MAX_VALUE >> Rnbd.SECTOR_SHIFT
            && lbs >= Rnbd.SECTOR_SIZE && lbs <= 4096 && Integer.bitCount(lbs) == 1
            && Integer.toUnsignedLong(s.get(Wire.LE32, at + 16)) >= lbs >> Rnbd.SECTOR_SHIFT;
    }

    public static int deviceId(MemorySegment s, long at) {
        return s.get(Wire.LE32, at + 4);
    }

    /** The geometry of a checked OPEN_RSP (unsigned 32-bit limits above Integer.MAX_VALUE read as it). */
    public static Geometry geometry(MemorySegment s, long at) {
        return new Geometry(s.get(Wire.LE64, at + 8), u32(s, at + 16), u32(s, at + 20), u32(s, at + 24), u32(s, at + 28),
            Wire.u16(s, at + 36), Wire.u16(s, at + 38), Wire.u8(s, at + 45));
    }

    private static int u32(MemorySegment s, long at) {
        return (int) Math.min(Integer.MAX_VALUE, Integer.toUnsignedLong(s.get(Wire.LE32, at)));
    }
}
