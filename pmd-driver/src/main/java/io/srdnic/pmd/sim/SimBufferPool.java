package io.srdnic.pmd.sim;

import static io.srdnic.ffm.rte_mbuf.BUF_ADDR_OFFSET;
import static io.srdnic.ffm.rte_mbuf.BUF_LEN_OFFSET;
import static io.srdnic.ffm.rte_mbuf.DATA_LEN_OFFSET;
import static io.srdnic.ffm.rte_mbuf.DATA_OFF_OFFSET;
import static io.srdnic.ffm.rte_mbuf.HASH_RSS_OFFSET;
import static io.srdnic.ffm.rte_mbuf.NB_SEGS_OFFSET;
import static io.srdnic.ffm.rte_mbuf.NEXT_OFFSET;
import static io.srdnic.ffm.rte_mbuf.OL_FLAGS_OFFSET;
import static io.srdnic.ffm.rte_mbuf.PACKET_TYPE_OFFSET;
import static io.srdnic.ffm.rte_mbuf.PKT_LEN_OFFSET;
import static io.srdnic.ffm.rte_mbuf.POOL_OFFSET;
import static io.srdnic.ffm.rte_mbuf.PORT_OFFSET;
import static io.srdnic.ffm.rte_mbuf.REFCNT_OFFSET;
import static io.srdnic.ffm.rte_mbuf.VLAN_TCI_OFFSET;

import io.srdnic.ffm.rte_mbuf;
import io.srdnic.pmd.ExternalBuffers;
import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A fixed set of {@code rte_mbuf}-shaped buffers in one native slab, so that the {@link io.srdnic.pmd.Mbuf}
 * flyweight reads a simulated frame exactly as it reads a DPDK one. Each buffer is:
 * <pre>
 *   0                 128 (buf_addr)         256 (buf_addr + data_off)
 *   +-----------------+----------------------+---------------------------+-- padding to 64 --+
 *   | struct rte_mbuf | headroom (128 bytes) | data room (dataRoom bytes)|                   |
 *   +-----------------+----------------------+---------------------------+-------------------+
 * </pre>
 * with buf_len = headroom + data room, data_off = 128, refcnt = 1, nb_segs = 1, next = NULL,
 * pool = NULL, and port = the allocating port.
 * <p>
 * Ownership is tracked per buffer (free, owned by the application, in the network) so that a
 * double free, freeing a buffer that was transmitted, or handing in an address that is not from
 * this pool is caught at once with an {@link IllegalArgumentException}: those are bugs in the
 * caller, not network conditions. Free buffers sit on an int stack: no allocation after set-up.
 * Not thread-safe: a simulation is driven by one thread.
 */
public final class SimBufferPool {
    /** Room for a 4096-byte SRD payload plus Ethernet, IPv4, UDP and SRD headers in one frame. */
    public static final int DEFAULT_DATA_ROOM = 4096 + 256;
    /** Bytes of {@code struct rte_mbuf} in front of each buffer. */
    public static final int HEADER_SIZE = (int) rte_mbuf.SIZE;
    /** Headroom in front of the data, as DPDK leaves it. */
    public static final int HEADROOM = rte_mbuf.RTE_PKTMBUF_HEADROOM;
    /** Largest data room that keeps buf_len within its 16 bits. */
    public static final int MAX_DATA_ROOM = 0xFFFF - HEADROOM;
    /** Each buffer starts on a cache line, as mempool objects do. */
    private static final int ALIGNMENT = 64;

    static final byte FREE = 0;
    static final byte APPLICATION = 1;
    static final byte NETWORK = 2;

    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private final MemorySegment slab;
    private final long base;
    private final int stride;
    private final int capacity;
    private final int dataRoom;
    private final byte[] state;
    private final int[] freeStack;
    private int freeCount;

    /** Allocates {@code capacity} buffers of {@code dataRoom} data bytes each from {@code arena}. */
    public SimBufferPool(Arena arena, int capacity, int dataRoom) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("pool capacity must be positive, was " + capacity);
        }
        if (dataRoom <= 0 || dataRoom > MAX_DATA_ROOM) {
            throw new IllegalArgumentException("data room must be 1.." + MAX_DATA_ROOM + " (buf_len is 16 bits), was " + dataRoom);
        }
        this.capacity = capacity;
        this.dataRoom = dataRoom;
        this.stride = (HEADER_SIZE + HEADROOM + dataRoom + ALIGNMENT - 1) & -ALIGNMENT;
        this.slab = arena.allocate((long) stride * capacity, ALIGNMENT);
        this.base = slab.address();
        this.state = new byte[capacity];
        this.freeStack = new int[capacity];
        // Lowest index on top, so a fresh pool hands out buffers in address order.
        for (int i = 0; i < capacity; i++) {
            freeStack[i] = capacity - 1 - i;
        }
        this.freeCount = capacity;
    }

    /** Allocates with {@link #DEFAULT_DATA_ROOM}. */
    public SimBufferPool(Arena arena, int capacity) {
        this(arena, capacity, DEFAULT_DATA_ROOM);
    }

    public int capacity() {
        return capacity;
    }

    /** Data bytes per buffer: the largest frame one buffer carries. */
    public int dataRoom() {
        return dataRoom;
    }

    /** Buffers not free (held by the application or in the network): 0 when nothing leaked. */
    public int inUse() {
        return capacity - freeCount;
    }

    public int available() {
        return freeCount;
    }

    /** Whether {@code address} is the start of one of this pool's buffers. */
    public boolean contains(long address) {
        long offset = address - base;
        return offset >= 0 && offset < (long) stride * capacity && offset % stride == 0;
    }

    /**
     * Appends {@code n} empty buffers stamped with {@code port} to {@code batch}, all or nothing:
     * returns {@code n}, or 0 with nothing taken when fewer than {@code n} are free.
     */
    public int allocate(MbufBatch batch, int n, int port) {
        if (n < 0 || n > batch.capacity() - batch.count()) {
            throw new IllegalArgumentException("cannot append " + n + " buffers to a batch holding "
                + batch.count() + " of " + batch.capacity());
        }
        if (n > freeCount) {
            return 0;
        }
        for (int i = 0; i < n; i++) {
            int index = pop(port);
            state[index] = APPLICATION;
            batch.add(address(index));
        }
        return n;
    }

    /**
     * Returns one application-owned buffer, and the segments chained after it; throws if one is not
     * from this pool or not owned. A segment attached to an external buffer releases it as a DPDK
     * free does ({@link ExternalBuffers#freedByDriver}).
     */
    public void free(long address) {
        while (address != 0) {
            int index = indexOf(address);
            expect(index, APPLICATION, "free");
            long at = offset(index);
            long next = slab.get(LONG, at + NEXT_OFFSET);
            if ((slab.get(LONG, at + OL_FLAGS_OFFSET) & rte_mbuf.RTE_MBUF_F_EXTERNAL) != 0) {
                ExternalBuffers.freedByDriver(slab.get(LONG, at + rte_mbuf.SHINFO_OFFSET));
            }
            release(index);
            address = next;
        }
    }

    /** Returns every buffer in {@code batch} in order, then clears it; stops at the first bad one with an exception. */
    public void free(MbufBatch batch) {
        for (int i = 0, n = batch.count(); i < n; i++) {
            free(batch.address(i));
        }
        batch.clear();
    }

    // ---- for the network: buffers by index -------------------------------------------------------

    /** Index of the buffer at {@code address}; throws if it is not one of ours. */
    int indexOf(long address) {
        if (!contains(address)) {
            throw new IllegalArgumentException("0x" + Long.toHexString(address)
                + " is not a buffer of this SimBufferPool: only its own buffers can be sent or freed here");
        }
        return (int) ((address - base) / stride);
    }

    long address(int index) {
        return base + (long) index * stride;
    }

    /** The application hands the buffer to the network (transmit); returns its index. */
    int take(long address) {
        int index = indexOf(address);
        expect(index, APPLICATION, "transmit");
        state[index] = NETWORK;
        return index;
    }

    /** The network hands the buffer to the application (receive); returns its address. */
    long give(int index) {
        state[index] = APPLICATION;
        return address(index);
    }

    /** The network drops the buffer. */
    void release(int index) {
        state[index] = FREE;
        freeStack[freeCount++] = index;
    }

    /** A copy of frame {@code index}, owned by the network and stamped with {@code port}; -1 when the pool is empty. */
    int copy(int index, int port) {
        if (freeCount == 0) {
            return -1;
        }
        int copy = pop(port);
        state[copy] = NETWORK;
        long from = offset(index);
        long to = offset(copy);
        int dataOffset = Short.toUnsignedInt(slab.get(SHORT, from + DATA_OFF_OFFSET));
        int length = Short.toUnsignedInt(slab.get(SHORT, from + DATA_LEN_OFFSET));
        slab.set(SHORT, to + DATA_OFF_OFFSET, (short) dataOffset);
        slab.set(SHORT, to + DATA_LEN_OFFSET, (short) length);
        slab.set(INT, to + PKT_LEN_OFFSET, length);
        long dataFrom = from + HEADER_SIZE + dataOffset;
        MemorySegment.copy(slab, dataFrom, slab, to + HEADER_SIZE + dataOffset, length);
        return copy;
    }

    int dataLength(int index) {
        return Short.toUnsignedInt(slab.get(SHORT, offset(index) + DATA_LEN_OFFSET));
    }

    /** Flips bit {@code bit} (0 = most significant bit of the first data byte) of frame {@code index}. */
    void flipBit(int index, int bit) {
        long at = offset(index) + HEADER_SIZE + Short.toUnsignedInt(slab.get(SHORT, offset(index) + DATA_OFF_OFFSET)) + (bit >>> 3);
        slab.set(BYTE, at, (byte) (slab.get(BYTE, at) ^ (0x80 >>> (bit & 7))));
    }

    /** Stamps a received frame as its receiving NIC would: its port, and none of the sender's offload flags. */
    void stampReceived(int index, int port) {
        long at = offset(index);
        slab.set(SHORT, at + PORT_OFFSET, (short) port);
        slab.set(LONG, at + OL_FLAGS_OFFSET, 0L);
        slab.set(INT, at + PACKET_TYPE_OFFSET, 0);
        slab.set(INT, at + HASH_RSS_OFFSET, 0);
    }

    byte state(int index) {
        return state[index];
    }

    private int pop(int port) {
        int index = freeStack[--freeCount];
        long at = offset(index);
        // Every field an application may have changed goes back to what rte_pktmbuf_alloc gives.
        slab.set(LONG, at + BUF_ADDR_OFFSET, address(index) + HEADER_SIZE);
        slab.set(SHORT, at + BUF_LEN_OFFSET, (short) (HEADROOM + dataRoom));
        slab.set(SHORT, at + DATA_OFF_OFFSET, (short) HEADROOM);
        slab.set(SHORT, at + REFCNT_OFFSET, (short) 1);
        slab.set(SHORT, at + NB_SEGS_OFFSET, (short) 1);
        slab.set(SHORT, at + PORT_OFFSET, (short) port);
        slab.set(LONG, at + OL_FLAGS_OFFSET, 0L);
        slab.set(INT, at + PACKET_TYPE_OFFSET, 0);
        slab.set(INT, at + PKT_LEN_OFFSET, 0);
        slab.set(SHORT, at + DATA_LEN_OFFSET, (short) 0);
        slab.set(SHORT, at + VLAN_TCI_OFFSET, (short) 0);
        slab.set(INT, at + HASH_RSS_OFFSET, 0);
        slab.set(LONG, at + POOL_OFFSET, 0L);
        slab.set(LONG, at + NEXT_OFFSET, 0L);
        return index;
    }

    private long offset(int index) {
        return (long) index * stride;
    }

    private void expect(int index, byte expected, String operation) {
        if (state[index] != expected) {
            throw new IllegalArgumentException("cannot " + operation + " buffer 0x" + Long.toHexString(address(index))
                + ": it is " + describe(state[index]) + " (double free, or use after transmit?)");
        }
    }

    private static String describe(byte state) {
        return switch (state) {
            case FREE -> "already free";
            case NETWORK -> "owned by the network (transmitted, not yet received)";
            default -> "owned by the application";
        };
    }

    @Override
    public String toString() {
        return "SimBufferPool[capacity=" + capacity + ", inUse=" + inUse() + ", dataRoom=" + dataRoom + "]";
    }
}
