package io.srdnic.block;

/**
 * Receives a device's allocation map (NBD's {@code base:allocation}) one extent at a time, in
 * order from the offset asked about: its length and its state, {@link #HOLE} and/or {@link #ZERO}
 * or 0 (allocated, contents unknown).
 */
@FunctionalInterface
public interface Extents {
    /** Not allocated (NBD_STATE_HOLE: the same bit NBD puts on the wire). */
    int HOLE = 1;
    /** Reads as zeroes (NBD_STATE_ZERO). */
    int ZERO = 2;

    /** @return whether the caller wants more extents after this one */
    boolean extent(long length, int state);
}
