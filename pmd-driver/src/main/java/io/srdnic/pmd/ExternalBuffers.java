package io.srdnic.pmd;

import static io.srdnic.ffm.rte_mbuf.EXT_FCB_OPAQUE_OFFSET;
import static io.srdnic.ffm.rte_mbuf.EXT_FREE_CB_OFFSET;
import static io.srdnic.ffm.rte_mbuf.EXT_REFCNT_OFFSET;
import static io.srdnic.ffm.rte_mbuf.EXT_SHARED_INFO_SIZE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Hold tickets for frames whose payload the driver reads straight from the application's memory
 * (an mbuf attached to it with {@link Mbuf#attachExternal}): one {@code rte_mbuf_ext_shared_info}
 * per ticket, with a done mark beside it. The driver's free of the mbuf runs the shared info's
 * callback, the shim's {@code srdnic_extbuf_done}, which sets the mark and calls nothing in Java;
 * the owner polls the marks once per duty cycle ({@link #poll}) and only then lets the memory go.
 * <p>
 * Tickets are handed out and taken back in order (a ring), so a ticket's shared info is never
 * reused while a driver may still read it: a ticket freed out of order waits for the older ones,
 * which only delays its release. Not thread-safe: the transport's thread only; nothing allocated
 * after construction.
 */
public final class ExternalBuffers {
    /** What the owner hears when a ticket's memory is no longer read by the driver. */
    public interface Released {
        void released(int owner);
    }

    private static final MemorySegment NATIVE = Mbuf.NATIVE;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    /** The shared info, then the 8-byte done mark, padded to half a cache line. */
    static final int TICKET_SIZE = 32;
    static final long MARK_OFFSET = EXT_SHARED_INFO_SIZE;

    private final long base;
    private final int mask;
    private final long freeCallback;
    private final int[] owner;
    private final long[] memory;
    private final int[] length;
    private long head;
    private long tail;

    /**
     * {@code capacity} tickets (rounded up to a power of two) in native memory of {@code arena}, each
     * releasing through {@code freeCallback} (the shim's {@code srdnic_extbuf_done}; a simulated NIC
     * never calls it and may pass 0).
     */
    public ExternalBuffers(Arena arena, int capacity, long freeCallback) {
        int n = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        this.base = arena.allocate((long) n * TICKET_SIZE, 64).address();
        this.mask = n - 1;
        this.freeCallback = freeCallback;
        this.owner = new int[n];
        this.memory = new long[n];
        this.length = new int[n];
    }

    /** Tickets held now: frames whose memory the driver may still read. */
    public int outstanding() {
        return (int) (tail - head);
    }

    public int capacity() {
        return mask + 1;
    }

    /**
     * A ticket for {@code ownerToken}'s {@code bytes} bytes at {@code address}: the address of its
     * shared info (refcnt 1, the callback, the mark clear) to attach with, or 0 when every ticket is held.
     */
    public long acquire(int ownerToken, long address, int bytes) {
        if (tail - head > mask) {
            return 0;
        }
        int i = (int) (tail++ & mask);
        owner[i] = ownerToken;
        memory[i] = address;
        length[i] = bytes;
        long info = base + (long) i * TICKET_SIZE;
        NATIVE.set(LONG, info + MARK_OFFSET, 0L);
        NATIVE.set(LONG, info + EXT_FREE_CB_OFFSET, freeCallback);
        NATIVE.set(LONG, info + EXT_FCB_OPAQUE_OFFSET, info + MARK_OFFSET);
        NATIVE.set(SHORT, info + EXT_REFCNT_OFFSET, (short) 1);
        return info;
    }

    /** Gives back the newest ticket, acquired but never attached to a frame that left. */
    public void cancelNewest() {
        if (tail > head) {
            tail--;
        }
    }

    /** Releases, oldest first, each ticket the driver has freed; returns how many. */
    public int poll(Released to) {
        int released = 0;
        while (head < tail) {
            int i = (int) (head & mask);
            if (NATIVE.get(ValueLayout.JAVA_LONG, base + (long) i * TICKET_SIZE + MARK_OFFSET) == 0) {
                break;
            }
            head++;
            released++;
            to.released(owner[i]);
        }
        return released;
    }

    /** Whether a held ticket's memory overlaps the {@code bytes} bytes at {@code address}. */
    public boolean holdsMemory(long address, long bytes) {
        for (long t = head; t < tail; t++) {
            int i = (int) (t & mask);
            if (memory[i] < address + bytes && address < memory[i] + length[i]) {
                return true;
            }
        }
        return false;
    }

    /**
     * What a driver's free does to an external buffer whose callback is the shim's: one reference
     * less, and at the last the mark at {@code fcb_opaque} set. For a simulated NIC, which frees
     * without DPDK.
     */
    public static void freedByDriver(long sharedInfo) {
        int refs = Short.toUnsignedInt(NATIVE.get(SHORT, sharedInfo + EXT_REFCNT_OFFSET)) - 1;
        NATIVE.set(SHORT, sharedInfo + EXT_REFCNT_OFFSET, (short) refs);
        if (refs == 0) {
            NATIVE.set(LONG, NATIVE.get(LONG, sharedInfo + EXT_FCB_OPAQUE_OFFSET), 1L);
        }
    }
}
