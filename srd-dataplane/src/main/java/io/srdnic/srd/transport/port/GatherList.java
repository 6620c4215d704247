package io.srdnic.srd.transport.port;

import io.srdnic.pmd.Mbuf;
import java.lang.foreign.MemorySegment;

/**
 * A gather list: the SGEs (ibv_sge) one work request sends from, in order, as one message. Made
 * once with room for {@link #MAX_SGE} entries and refilled per request, so that a gathered post
 * allocates nothing: the verbs facade fills one per post-ring slot, and an RC send-queue slot copies
 * it in, to be walked by segmentation.
 */
public final class GatherList {
    /** The most SGEs one send work request may gather (the device's max_sge). */
    public static final int MAX_SGE = 8;

    final MemorySegment[] segment = new MemorySegment[MAX_SGE];
    final long[] offset = new long[MAX_SGE];
    final int[] length = new int[MAX_SGE];
    int count;

    /** Empties the list. */
    public void clear() {
        for (int i = 0; i < count; i++) {
            segment[i] = null;
        }
        count = 0;
    }

    /** Appends {@code length} bytes at {@code offset} of {@code segment}; false when the list is full. */
    public boolean add(MemorySegment segment, long offset, int length) {
        if (count == MAX_SGE) {
            return false;
        }
        this.segment[count] = segment;
        this.offset[count] = offset;
        this.length[count] = length;
        count++;
        return true;
    }

    public int count() {
        return count;
    }

    /** The segment of entry {@code i}. */
    public MemorySegment segment(int i) {
        return segment[i];
    }

    /** The offset in its segment of entry {@code i}. */
    public long offset(int i) {
        return offset[i];
    }

    /** The bytes all entries hold together (Long: a caller checks it against the message size). */
    public long totalLength() {
        long n = 0;
        for (int i = 0; i < count; i++) {
            n += length[i];
        }
        return n;
    }

    /** Whether every entry lies inside its segment. */
    public boolean inBounds() {
        for (int i = 0; i < count; i++) {
            if (segment[i] == null || offset[i] < 0 || length[i] < 0 || offset[i] > segment[i].byteSize() - length[i]) {
                return false;
            }
        }
        return true;
    }

    /** Takes the entries of {@code from} (this list's own arrays: nothing allocated). */
    public void copyFrom(GatherList from) {
        clear();
        for (int i = 0; i < from.count; i++) {
            add(from.segment[i], from.offset[i], from.length[i]);
        }
    }

    /**
     * Copies {@code n} bytes from message offset {@code at} (the entries laid end to end) into
     * packet {@code to} at {@code toOffset}, walking the entries the range spans.
     */
    public void copyOut(long at, Mbuf to, int toOffset, int n) {
        int i = 0;
        long skip = at;
        while (i < count && skip >= length[i]) {
            skip -= length[i++];
        }
        int left = n;
        int into = toOffset;
        while (left > 0) {
            int chunk = (int) Math.min(left, length[i] - skip);
            to.copyFrom(segment[i], offset[i] + skip, into, chunk);
            left -= chunk;
            into += chunk;
            skip = 0;
            i++;
        }
    }
}
