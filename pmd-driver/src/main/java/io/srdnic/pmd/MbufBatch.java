package io.srdnic.pmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A reusable burst: a native array of {@code rte_mbuf*} as rx/tx burst calls take it, its fill
 * count, and one {@link Mbuf} flyweight per slot. Made once, used for every burst: no allocation.
 */
public final class MbufBatch {
    /** DPDK's customary burst size. */
    public static final int DEFAULT_CAPACITY = 32;

    private final MemorySegment pointers;
    private final long pointersAddress;
    private final Mbuf[] views;
    private int count;

    public MbufBatch(Arena arena, int capacity) {
        if (capacity <= 0 || capacity > 0xFFFF) {
            throw new IllegalArgumentException("burst capacity must be 1..65535, was " + capacity);
        }
        this.pointers = arena.allocate(ValueLayout.ADDRESS, capacity);
        this.pointersAddress = pointers.address();
        this.views = new Mbuf[capacity];
        for (int i = 0; i < capacity; i++) {
            views[i] = new Mbuf();
        }
    }

    public MbufBatch(Arena arena) {
        this(arena, DEFAULT_CAPACITY);
    }

    public int capacity() {
        return views.length;
    }

    public int count() {
        return count;
    }

    public boolean isEmpty() {
        return count == 0;
    }

    public boolean isFull() {
        return count == views.length;
    }

    /** Sets the fill count after a native call wrote the pointer array. */
    public void count(int count) {
        if (count < 0 || count > views.length) {
            throw new IllegalArgumentException("count " + count + " outside 0.." + views.length);
        }
        this.count = count;
    }

    public void clear() {
        count = 0;
    }

    /** The flyweight for slot {@code index}, pointed at the mbuf there. */
    public Mbuf get(int index) {
        return views[index].wrap(address(index));
    }

    public long address(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("slot " + index + " of " + count);
        }
        return pointers.getAtIndex(ValueLayout.JAVA_LONG, index);
    }

    /** Appends an mbuf; the batch must not be full. */
    public void add(long mbufAddress) {
        if (count == views.length) {
            throw new IllegalStateException("batch full at " + count);
        }
        pointers.setAtIndex(ValueLayout.JAVA_LONG, count++, mbufAddress);
    }

    /** Overwrites slot {@code index} (which must be filled) with another mbuf. */
    public void set(int index, long mbufAddress) {
        address(index);
        pointers.setAtIndex(ValueLayout.JAVA_LONG, index, mbufAddress);
    }

    /** Moves the last mbuf into slot {@code index} and shrinks by one (order is not kept). */
    public long removeAt(int index) {
        long removed = address(index);
        pointers.setAtIndex(ValueLayout.JAVA_LONG, index, pointers.getAtIndex(ValueLayout.JAVA_LONG, count - 1));
        count--;
        return removed;
    }

    /** The native pointer array, for burst downcalls. */
    public MemorySegment pointers() {
        return pointers;
    }

    /**
     * The array's address, for burst downcalls that take pointers as longs. Keep the batch's arena
     * open as long as the batch is used: the address is not checked per call.
     */
    public long pointersAddress() {
        return pointersAddress;
    }
}
