package io.srdnic.rtrs.client;

/** How a session picks the path for each IO (Linux's mp_policy). */
public enum MpPolicy {
    /** Each path in turn. */
    ROUND_ROBIN,
    /** The path with the fewest IOs in flight (Linux's default). */
    MIN_INFLIGHT,
    /** The path whose last heartbeat round trip was shortest. */
    MIN_LATENCY
}
