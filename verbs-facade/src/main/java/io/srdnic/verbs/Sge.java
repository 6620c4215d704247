package io.srdnic.verbs;

import java.lang.foreign.MemorySegment;

/** One scatter/gather element: bytes of a registered region, named by its lkey. Reusable. */
public final class Sge {
    MemorySegment segment;
    long offset;
    int length;
    int lkey;

    /** Points this element at {@code length} bytes at {@code offset} of {@code region}. */
    public Sge set(MemoryRegion region, long offset, int length) {
        return set(region.segment(), offset, length, region.lkey());
    }

    /** As verbs: a segment, offset and length, with the lkey that must cover them. */
    public Sge set(MemorySegment segment, long offset, int length, int lkey) {
        this.segment = segment;
        this.offset = offset;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    public int length() {
        return length;
    }
}
