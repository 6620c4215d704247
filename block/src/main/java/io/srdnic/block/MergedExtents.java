package io.srdnic.block;

/**
 * An {@link Extents} receiver that writes an allocation map into a fixed number of places (an NBD
 * reply's descriptors, an RNBD answer's extents): neighbours of the same state merged while the
 * sum fits a u32 (both wires carry 32-bit lengths), and no more than {@code limit} put; once full
 * it asks the device for no more. Allocates nothing; one map at a time.
 */
public abstract class MergedExtents implements Extents {
    /** The longest extent a 32-bit length carries. */
    public static final long MAX_EXTENT = 0xFFFF_FFFFL;

    private int limit;
    private int count;
    private long pendingLength;
    private int pendingState;

    /** Starts a map of at most {@code limit} extents. */
    protected final void begin(int limit) {
        this.limit = limit;
        this.count = 0;
        this.pendingLength = 0;
    }

    @Override
    public final boolean extent(long length, int state) {
        if (length <= 0) {
            return true;
        }
        if (pendingLength > 0 && state == pendingState && pendingLength + length <= MAX_EXTENT) {
            pendingLength += length;
            return true;
        }
        if (count == limit) {
            return false; // a device that goes on after being told no more: the rest is not asked for
        }
        if (pendingLength > 0) {
            put(count++, pendingLength, pendingState);
            if (count == limit) {
                pendingLength = 0;
                return false;
            }
        }
        pendingLength = length;
        pendingState = state;
        return true;
    }

    /** Puts the last extent, if any and there is room; returns how many were put in all. */
    protected final int end() {
        if (pendingLength > 0 && count < limit) {
            put(count++, pendingLength, pendingState);
        }
        pendingLength = 0;
        return count;
    }

    /** Writes extent {@code index} (0, 1, ... in order), at most {@link #MAX_EXTENT} long. */
    protected abstract void put(int index, long length, int state);
}
