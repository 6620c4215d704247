package io.srdnic.srd.transport.port;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The memory regions registered with a transport, which its responder checks every RDMA request
 * against: the key names a region, the region belongs to a protection domain and grants access
 * flags. Deregistering takes effect at once: the next packet naming the key is refused, requests
 * already in flight against it included. Registered and deregistered on the transport's thread.
 * <p>
 * A key is a registration serial number (25 bits, one per registration of any region) and a
 * random tag (6 bits, so that a made-up key misses): a deregistered key is not handed out again
 * for at least 2^25 − 1 registrations, so a peer holding a revoked rkey cannot reach a region
 * registered after it (as rdma-core's providers cycle their key byte and index). The key finds
 * its region through a map from serial to index, filled and emptied on the control path.
 */
public final class MemoryRegions {
    /** Access flags (ibv_access_flags' values). */
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;

    /** The tag's bits; the region's index was these bits' neighbour once, the serial is now. */
    private static final int TAG_BITS = 6;
    private static final int SERIAL_MASK = (1 << (31 - TAG_BITS)) - 1;

    private final int capacity;
    private MemorySegment[] segment;
    private int[] key;
    private int[] pd;
    private int[] access;
    /** The address RDMA requests name the region's first byte by: its own, or the one its owner advertises (ibv_reg_mr_iova). */
    private long[] base;
    private final SplittableRandom tags;
    private int count;
    private TxBurst sender;
    /** The last registration's serial number; the live regions' serials map to their indexes. */
    private int serial;
    private final LongIntMap bySerial = new LongIntMap(64);

    public MemoryRegions(int capacity, SplittableRandom tags) {
        if (capacity > 1 << 23) {
            throw new IllegalArgumentException("at most " + (1 << 23) + " memory regions");
        }
        this.capacity = capacity;
        this.segment = new MemorySegment[Math.min(capacity, 64)];
        this.key = new int[segment.length];
        this.pd = new int[segment.length];
        this.access = new int[segment.length];
        this.base = new long[segment.length];
        this.tags = tags;
    }

    /** Registers {@code memory} (native) for protection domain {@code pdId}; returns its key (lkey and rkey alike). */
    public int register(MemorySegment memory, int pdId, int accessFlags) {
        return register(memory, pdId, accessFlags, memory.address());
    }

    /**
     * As {@link #register(MemorySegment, int, int)}, with RDMA requests naming the region's first
     * byte {@code virtualBase} rather than its address here (ibv_reg_mr_iova): for memory another
     * process maps too, at another address, and advertises to its peers by its own.
     */
    public int register(MemorySegment memory, int pdId, int accessFlags, long virtualBase) {
        if (!memory.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered");
        }
        if (count == segment.length && count < capacity) {
            int grown = Math.min(capacity, 2 * count); // the table grows with use, not to its capacity up front
            segment = Arrays.copyOf(segment, grown);
            key = Arrays.copyOf(key, grown);
            pd = Arrays.copyOf(pd, grown);
            access = Arrays.copyOf(access, grown);
            base = Arrays.copyOf(base, grown);
        }
        for (int i = 0; i < segment.length; i++) {
            if (segment[i] == null) {
                segment[i] = memory;
                key[i] = (nextSerial() << TAG_BITS) | (1 + tags.nextInt((1 << TAG_BITS) - 1));
                bySerial.put(key[i] >>> TAG_BITS, i);
                pd[i] = pdId;
                access[i] = accessFlags;
                base[i] = virtualBase;
                count++;
                return key[i];
            }
        }
        throw new IllegalStateException("all " + capacity + " memory regions are in use: deregister some");
    }

    /** The TX burst whose driver may read regions' memory after a send (zero-copy), asked before a region goes. */
    public void readBy(TxBurst tx) {
        this.sender = tx;
    }

    /**
     * Deregisters the region {@code k} names; from now on every request naming it is refused. The
     * driver is first asked to free what it sent from the region's memory; if it still reads some
     * (a driver that cannot be made to free), the region stays and this throws: the memory must not
     * go yet.
     */
    public void deregister(int k) {
        int i = indexOf(k);
        if (i < 0) {
            throw new IllegalArgumentException("no memory region with key " + Integer.toHexString(k));
        }
        if (sender != null && segment[i].isNative() && sender.stillReads(segment[i].address(), segment[i].byteSize())) {
            throw new IllegalStateException("memory region " + Integer.toHexString(k)
                + " is still read by the NIC for a send not yet freed by its driver: deregister it after the send completes");
        }
        bySerial.remove(key[i] >>> TAG_BITS);
        segment[i] = null;
        key[i] = 0;
        count--;
    }

    /** The next registration's serial: never 0, never one a live region still has (after a wrap). */
    private int nextSerial() {
        do {
            serial = (serial + 1) & SERIAL_MASK;
        } while (serial == 0 || bySerial.get(serial) != LongIntMap.MISSING);
        return serial;
    }

    /** Whether {@code k} names a registered region. */
    public boolean isLive(int k) {
        return indexOf(k) >= 0;
    }

    /**
     * Whether region {@code k} is registered and holds [{@code offset}, +{@code length}) of
     * {@code buffer}: a posted receive's memory is still its region's (a key deregistered and drawn
     * again for other memory does not pass).
     */
    public boolean holds(int k, MemorySegment buffer, long offset, int length) {
        int i = indexOf(k);
        if (i < 0) {
            return false;
        }
        long start = buffer.address() + offset - segment[i].address();
        return start >= 0 && start <= segment[i].byteSize() - length;
    }

    /**
     * Whether a receive posted from region {@code k} (0: posted naming none) may still take data:
     * the one check every delivery path makes before it writes into a receive's bytes.
     */
    public boolean admits(int k, MemorySegment buffer, long offset, int length) {
        return k == 0 || holds(k, buffer, offset, length);
    }

    public int count() {
        return count;
    }

    /**
     * The region {@code rkey} names if it belongs to {@code pdId}, grants {@code needed} and holds
     * [{@code address}, {@code address + length}) (addresses are virtual, as in verbs: the memory's
     * native address, or the base it was registered with); else -1.
     */
    public int find(int rkey, int pdId, long address, long length, int needed) {
        int i = indexOf(rkey);
        if (i < 0 || pd[i] != pdId || (access[i] & needed) != needed || length < 0) {
            return -1;
        }
        long offset = address - base[i];
        return offset >= 0 && offset <= segment[i].byteSize() - length ? i : -1;
    }

    /** Where {@code address} (found in region {@code index}) lies in its {@link #segment}. */
    public long offset(int index, long address) {
        return address - base[index];
    }

    public MemorySegment segment(int index) {
        return segment[index];
    }

    private int indexOf(int k) {
        int i = k <= 0 ? LongIntMap.MISSING : bySerial.get(k >>> TAG_BITS);
        return i >= 0 && key[i] == k ? i : -1;
    }
}
