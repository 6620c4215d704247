package io.srdnic.verbs.attach;

import java.util.Map;
import java.util.TreeMap;

/**
 * Spans of an attached context's shared file handed out and taken back: the client's pool (its
 * regions) and the dataplane's ring area (its QPs', CQs' and SRQs' rings). First fit over the free
 * blocks, every span 64-byte aligned (a cache line: no two rings or regions share one), a freed
 * span merged with free neighbours, so a long-lived application that keeps making and destroying
 * QPs or regions does not run out. Control path only (a tree of free blocks; not per work request).
 */
public final class FreeSpace {
    /** Free blocks by offset: offset → length, none adjacent to another (they are merged). */
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final long size;
    private long used;

    public FreeSpace(long size) {
        this.size = size - size % SharedLayout.ALIGN; // whole cache lines only
        if (this.size > 0) {
            free.put(0L, this.size);
        }
    }

    /** The offset of {@code bytes} bytes now handed out, or -1 when no free block holds them. */
    public long allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("a span needs at least one byte, asked " + bytes);
        }
        long span = SharedLayout.align(bytes);
        for (Map.Entry<Long, Long> block : free.entrySet()) {
            long at = block.getKey();
            long length = block.getValue();
            if (length >= span) {
                free.remove(at); // the entry is not to be read after this: a TreeMap may reuse it for another key
                if (length > span) {
                    free.put(at + span, length - span);
                }
                used += span;
                return at;
            }
        }
        return -1;
    }

    /** Takes back the span {@link #allocate} gave for {@code bytes} at {@code at}; throws if any of it is not handed out. */
    public void free(long at, long bytes) {
        long span = SharedLayout.align(bytes);
        if (at < 0 || bytes <= 0 || at % SharedLayout.ALIGN != 0 || at + span > size) {
            throw new IllegalStateException("[" + at + ", +" + bytes + ") was never handed out of " + size + " bytes");
        }
        Map.Entry<Long, Long> before = free.floorEntry(at);
        Map.Entry<Long, Long> after = free.ceilingEntry(at);
        if ((before != null && before.getKey() + before.getValue() > at) || (after != null && after.getKey() < at + span)) {
            throw new IllegalStateException("[" + at + ", +" + bytes + ") is free already (freed twice?)");
        }
        long start = at;
        long length = span;
        if (before != null && before.getKey() + before.getValue() == at) {
            start = before.getKey();
            length += before.getValue();
            free.remove(before.getKey());
        }
        if (after != null && after.getKey() == at + span) {
            length += after.getValue();
            free.remove(after.getKey());
        }
        free.put(start, length);
        used -= span;
    }

    /** Bytes handed out now, alignment included. */
    public long used() {
        return used;
    }
}
