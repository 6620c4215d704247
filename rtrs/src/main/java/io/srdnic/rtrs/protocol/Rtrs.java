package io.srdnic.rtrs.protocol;

/**
 * RTRS's protocol constants, with Linux's values (drivers/infiniband/ulp/rtrs/rtrs-pri.h,
 * rtrs-srv.c; docs/rtrs-conformance.md says where each comes from).
 */
public final class Rtrs {
    public static final int MAGIC = 0x1BBD;
    public static final int VERSION_MAJOR = 2;
    public static final int VERSION_MINOR = 0;
    /** major << 8 | minor, as on the wire; only the major is checked. */
    public static final int VERSION = VERSION_MAJOR << 8 | VERSION_MINOR;
    /** A session's paths, at most. */
    public static final int MAX_PATHS = 128;
    /** Connections per path a server takes, at most (Linux's sanity bound on cid_num). */
    public static final int MAX_CONNECTIONS = 4096;
    public static final int MAX_QUEUE_DEPTH = 65535;
    public static final int DEFAULT_QUEUE_DEPTH = 512;
    public static final int DEFAULT_CHUNK_SIZE = 128 << 10;
    public static final int MIN_CHUNK_SIZE = 8192;
    /** What a request's user header and RTRS message may take of a chunk (a page): max IO = chunk - this. */
    public static final int MAX_HDR_SIZE = 4096;
    public static final long HB_INTERVAL_MS = 5000;
    public static final int HB_MISSED_MAX = 5;
    /** Receives posted on a path's service connection (cid 0): heartbeats and the INFO messages. */
    public static final int SERVICE_QUEUE_DEPTH = 512;

    private Rtrs() {
    }
}
