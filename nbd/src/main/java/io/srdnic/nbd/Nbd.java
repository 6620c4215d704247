package io.srdnic.nbd;

import io.srdnic.block.Extents;

/** Wire constants of the NBD protocol (NetworkBlockDevice/nbd doc/proto.md), one place for all. */
public final class Nbd {
    // Handshake
    public static final long NBDMAGIC = 0x4e42444d41474943L;
    public static final long IHAVEOPT = 0x49484156454F5054L;
    public static final long OPTION_REPLY_MAGIC = 0x3e889045565a9L;
    public static final int FLAG_FIXED_NEWSTYLE = 1;
    public static final int FLAG_NO_ZEROES = 1 << 1;
    public static final int FLAG_C_FIXED_NEWSTYLE = 1;
    public static final int FLAG_C_NO_ZEROES = 1 << 1;

    // Options
    public static final int OPT_EXPORT_NAME = 1;
    public static final int OPT_ABORT = 2;
    public static final int OPT_LIST = 3;
    public static final int OPT_STARTTLS = 5;
    public static final int OPT_INFO = 6;
    public static final int OPT_GO = 7;
    public static final int OPT_STRUCTURED_REPLY = 8;
    public static final int OPT_LIST_META_CONTEXT = 9;
    public static final int OPT_SET_META_CONTEXT = 10;
    public static final int OPT_EXTENDED_HEADERS = 11;

    // Option replies
    public static final int REP_ACK = 1;
    public static final int REP_SERVER = 2;
    public static final int REP_INFO = 3;
    public static final int REP_META_CONTEXT = 4;
    public static final int REP_ERR_UNSUP = 0x8000_0001;
    public static final int REP_ERR_POLICY = 0x8000_0002;
    public static final int REP_ERR_INVALID = 0x8000_0003;
    public static final int REP_ERR_UNKNOWN = 0x8000_0006;
    public static final int REP_ERR_SHUTDOWN = 0x8000_0007;

    // NBD_REP_INFO types
    public static final int INFO_EXPORT = 0;
    public static final int INFO_NAME = 1;
    public static final int INFO_DESCRIPTION = 2;
    public static final int INFO_BLOCK_SIZE = 3;

    // Transmission flags
    public static final int FLAG_HAS_FLAGS = 1;
    public static final int FLAG_READ_ONLY = 1 << 1;
    public static final int FLAG_SEND_FLUSH = 1 << 2;
    public static final int FLAG_SEND_FUA = 1 << 3;
    public static final int FLAG_SEND_TRIM = 1 << 5;
    public static final int FLAG_SEND_WRITE_ZEROES = 1 << 6;
    public static final int FLAG_SEND_DF = 1 << 7;
    public static final int FLAG_CAN_MULTI_CONN = 1 << 8;
    public static final int FLAG_SEND_FAST_ZERO = 1 << 11;

    // Requests and replies
    public static final int REQUEST_MAGIC = 0x25609513;
    public static final int SIMPLE_REPLY_MAGIC = 0x67446698;
    public static final int STRUCTURED_REPLY_MAGIC = 0x668e33ef;
    public static final int REQUEST_LENGTH = 28;
    public static final int SIMPLE_REPLY_LENGTH = 16;
    public static final int STRUCTURED_HEADER_LENGTH = 20;

    // Commands
    public static final int CMD_READ = 0;
    public static final int CMD_WRITE = 1;
    public static final int CMD_DISC = 2;
    public static final int CMD_FLUSH = 3;
    public static final int CMD_TRIM = 4;
    public static final int CMD_CACHE = 5;
    public static final int CMD_WRITE_ZEROES = 6;
    public static final int CMD_BLOCK_STATUS = 7;

    // Command flags
    public static final int CMD_FLAG_FUA = 1;
    public static final int CMD_FLAG_NO_HOLE = 1 << 1;
    public static final int CMD_FLAG_DF = 1 << 2;
    public static final int CMD_FLAG_REQ_ONE = 1 << 3;
    public static final int CMD_FLAG_FAST_ZERO = 1 << 4;

    // Structured reply chunks
    public static final int REPLY_FLAG_DONE = 1;
    public static final int REPLY_TYPE_NONE = 0;
    public static final int REPLY_TYPE_OFFSET_DATA = 1;
    public static final int REPLY_TYPE_BLOCK_STATUS = 5;
    public static final int REPLY_TYPE_ERROR = 0x8001;

    // The base:allocation metadata context: its name, the id this server gives it, its state bits
    public static final String CONTEXT_BASE_ALLOCATION = "base:allocation";
    public static final int CONTEXT_BASE_ALLOCATION_ID = 1;
    public static final int STATE_HOLE = Extents.HOLE;
    public static final int STATE_ZERO = Extents.ZERO;

    /** Longest option payload read; a longer one is skipped and refused (names are at most 4096 bytes). */
    public static final int MAX_OPTION_LENGTH = 65536;

    private Nbd() {
    }
}
