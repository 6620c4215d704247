package io.srdnic.rnbd.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a gateway IO spends its time on the client side, summed over every completed data
 * operation: from the caller's enqueue until the poll thread hands it to RTRS (the hand-off between
 * the NBD reader and the poll loop), from that hand-off until RTRS answers (links, RC and the whole
 * server), and the completion callback itself (the reply queued for the NBD writer). Plus how many
 * operations each busy poll pass moved, which says whether requests travel in batches. Written by
 * the poll thread only; a snapshot read from another thread may be a few operations stale.
 */
public final class IoStages {
    /** Data operations completed. */
    long ops;
    /** Enqueue to first piece posted, summed. */
    long queueNanos;
    /** Piece posted to RTRS answer, summed over pieces. */
    long rtrsNanos;
    /** Inside the caller's completion, summed. */
    long completeNanos;
    /** Poll passes, passes that did work, and pieces posted in those. */
    long polls;
    long busyPolls;
    long submitted;

    /** Means in nanoseconds per operation, and operations per busy poll pass, as a stats map. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        long n = Math.max(1, ops);
        m.put("ops", ops);
        m.put("queue_wait_ns", queueNanos / n);
        m.put("rtrs_round_trip_ns", rtrsNanos / n);
        m.put("completion_ns", completeNanos / n);
        m.put("polls", polls);
        m.put("busy_polls", busyPolls);
        m.put("submitted_per_busy_poll_x100", busyPolls == 0 ? 0 : submitted * 100 / busyPolls);
        return m;
    }
}
