package io.srdnic.rnbd.protocol;

/**
 * RNBD's constants (Linux's rnbd-proto.h, protocol 2.0). Every message starts with a 4-byte
 * header, {@code le16 type, le16 padding}; all fields are little-endian. SESS_INFO and OPEN go as
 * RTRS reads (their answer is the read's data), IO as an RTRS read or write, CLOSE as a write
 * without data: the message is always the RTRS user header.
 */
public final class Rnbd {
    public static final int VERSION_MAJOR = 2;
    public static final int VERSION_MINOR = 0;

    public static final int MSG_SESS_INFO = 0;
    public static final int MSG_SESS_INFO_RSP = 1;
    public static final int MSG_OPEN = 2;
    public static final int MSG_OPEN_RSP = 3;
    public static final int MSG_IO = 4;
    public static final int MSG_CLOSE = 5;
    /**
     * srdnic's allocation query and its answer (not in Linux's protocol; docs/rnbd.md): far from
     * Linux's types, so that a type Linux adds later cannot collide. A Linux server refuses it
     * (EINVAL), and the client then calls the whole device allocated.
     */
    public static final int MSG_BLOCK_STATUS = 0x80;
    public static final int MSG_BLOCK_STATUS_RSP = 0x81;

    public static final int ACCESS_RO = 0;
    public static final int ACCESS_RW = 1;
    public static final int ACCESS_MIGRATION = 2;

    public static final int OP_READ = 0;
    public static final int OP_WRITE = 1;
    public static final int OP_FLUSH = 2;
    public static final int OP_DISCARD = 3;
    public static final int OP_SECURE_ERASE = 4;
    /** Linux's value once WRITE_SAME left the protocol (a choice written down in docs/rnbd.md). */
    public static final int OP_WRITE_ZEROES = 5;
    public static final int OP_BITS = 8;
    public static final int OP_MASK = (1 << OP_BITS) - 1;
    public static final int F_SYNC = 1 << OP_BITS;
    public static final int F_FUA = 1 << (OP_BITS + 1);
    public static final int F_PREFLUSH = 1 << (OP_BITS + 2);
    public static final int F_NOUNMAP = 1 << (OP_BITS + 3);
    /** Every flag this side knows; an IO with another bit set is refused. */
    public static final int F_KNOWN = F_SYNC | F_FUA | F_PREFLUSH | F_NOUNMAP;

    /** OPEN_RSP's cache_policy bits. */
    public static final int CACHE_FUA = 1;
    public static final int CACHE_WRITEBACK = 2;

    /** Sectors are 512 bytes whatever the device's block size (Linux's SECTOR_SHIFT). */
    public static final int SECTOR_SHIFT = 9;
    public static final int SECTOR_SIZE = 1 << SECTOR_SHIFT;
    /** OPEN's dev_name field: NAME_MAX bytes, NUL-padded. */
    public static final int NAME_MAX = 255;

    private Rnbd() {
    }

    public static String accessName(int mode) {
        return switch (mode) {
            case ACCESS_RO -> "ro";
            case ACCESS_RW -> "rw";
            case ACCESS_MIGRATION -> "migration";
            default -> "unknown(" + mode + ")";
        };
    }
}
