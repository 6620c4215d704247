package io.srdnic.nbd;

/**
 * Receives a device's allocation map (NBD's {@code base:allocation}) one extent at a time, in
 * order from the offset asked about: its length and its state, {@link Nbd#STATE_HOLE} and/or
 * {@link Nbd#STATE_ZERO} or 0 (allocated, contents unknown).
 */
@FunctionalInterface
public interface Extents {
    /** @return whether the caller wants more extents after this one */
    boolean extent(long length, int state);
}
