package io.srdnic.rtrs.server;

import io.srdnic.rtrs.link.RcRetry;
import io.srdnic.rtrs.protocol.Rtrs;
import java.util.Objects;

/** What a server offers each session (Linux's rtrs_server module parameters and constants), set before {@link RtrsServer#open}. */
public final class ServerConfig {
    /** Linux's RTRS port (rnbd's default). */
    public static final int DEFAULT_PORT = 1234;

    int port = DEFAULT_PORT;
    int queueDepth = Rtrs.DEFAULT_QUEUE_DEPTH;
    int chunkSize = Rtrs.DEFAULT_CHUNK_SIZE;
    int maxPaths = Rtrs.MAX_PATHS;
    long heartbeatIntervalNanos = Rtrs.HB_INTERVAL_MS * 1_000_000L;
    int heartbeatMissedMax = Rtrs.HB_MISSED_MAX;
    RcRetry rcRetry = RcRetry.DEFAULT;
    /** Send queue entries per IO connection; 0: the queue depth and 8 more (see {@link #sendQueueDepth}). */
    int sendQueueDepth;

    public ServerConfig port(int p) {
        this.port = p;
        return this;
    }

    /** Chunks per session (sess_queue_depth): 1..65535. */
    public ServerConfig queueDepth(int n) {
        if (n < 1 || n > Rtrs.MAX_QUEUE_DEPTH) {
            throw new IllegalArgumentException("queue depth is 1.." + Rtrs.MAX_QUEUE_DEPTH + ", was " + n);
        }
        this.queueDepth = n;
        return this;
    }

    /** Bytes per chunk (max_chunk_size): a power of two of at least 8 KiB; max IO is this less the 4 KiB header room. */
    public ServerConfig chunkSize(int bytes) {
        if (bytes < Rtrs.MIN_CHUNK_SIZE || Integer.bitCount(bytes) != 1) {
            throw new IllegalArgumentException("chunk size is a power of two >= " + Rtrs.MIN_CHUNK_SIZE + ", was " + bytes);
        }
        this.chunkSize = bytes;
        return this;
    }

    /** Paths per session, at most (1..128). */
    public ServerConfig maxPaths(int n) {
        if (n < 1 || n > Rtrs.MAX_PATHS) {
            throw new IllegalArgumentException("max paths is 1.." + Rtrs.MAX_PATHS + ", was " + n);
        }
        this.maxPaths = n;
        return this;
    }

    public ServerConfig heartbeat(long intervalNanos, int missedMax) {
        this.heartbeatIntervalNanos = intervalNanos;
        this.heartbeatMissedMax = missedMax;
        return this;
    }

    /**
     * Send queue entries of each IO connection (default: the session's queue depth and 8 more). An
     * answer stays in the send queue until the client's ACK, so a burst of answers can find it full
     * whatever its size; such an answer waits on its path and goes from a later poll (counted:
     * {@code deferred_responses}). A smaller queue bounds what each connection holds in flight.
     */
    public ServerConfig sendQueueDepth(int entries) {
        if (entries < 1 || entries > Rtrs.MAX_QUEUE_DEPTH + 8) {
            throw new IllegalArgumentException("send queue depth is 1.." + (Rtrs.MAX_QUEUE_DEPTH + 8) + ", was " + entries);
        }
        this.sendQueueDepth = entries;
        return this;
    }

    /** The RC retry limits each accepted connection is given (through the CM): how long a silent client is waited for. */
    public ServerConfig rcRetry(RcRetry r) {
        this.rcRetry = Objects.requireNonNull(r);
        return this;
    }
}
