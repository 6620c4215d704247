package io.srdnic.pmd.sim;

/**
 * What can happen to a frame in a {@link SimNetwork}: each is one counter in {@link SimCounters}
 * and one call of a {@link TraceListener}. The {@code DROPPED_*} kinds say why a frame was dropped.
 */
public enum SimEvent {
    /** A port's transmit handed the frame to its uplink. */
    SENT,
    /** The frame reached the receiving port's RX ring. */
    DELIVERED,
    /** A link made a copy of the frame (the copy travels on behind the original). */
    DUPLICATED,
    /** A link flipped one bit of the frame beyond its Ethernet header. */
    CORRUPTED,
    /** A link held the frame back by an extra delay so later frames overtake it. */
    REORDERED,
    /** Lost on a link (the link's loss probability). */
    DROPPED_LOSS,
    /** Routed over, or caught on, a fabric path that is blackholed. */
    DROPPED_BLACKHOLE,
    /** The link's queue could not take the frame (backlog plus frame over the queue limit). */
    DROPPED_QUEUE_FULL,
    /** The receiving port's RX ring was full. */
    DROPPED_RX_RING_FULL,
    /** No host has the destination MAC (or a broadcast had no other host). */
    DROPPED_UNKNOWN_DESTINATION,
    /** The buffer pool was empty: an allocate() refused, or a duplicate or broadcast copy not made. */
    DROPPED_POOL_EXHAUSTED,
    /** Shorter than an Ethernet header, longer than the data room, or not a single segment. */
    DROPPED_MALFORMED;

    /** Every kind, indexed by ordinal; {@code values()} would allocate a new array on each call. */
    static final SimEvent[] VALUES = values();

    /** Whether this kind ends the frame's journey. */
    public boolean isDrop() {
        return ordinal() >= DROPPED_LOSS.ordinal();
    }
}
