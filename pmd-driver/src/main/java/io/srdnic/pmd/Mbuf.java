package io.srdnic.pmd;

import static io.srdnic.ffm.rte_mbuf.BUF_ADDR_OFFSET;
import static io.srdnic.ffm.rte_mbuf.BUF_IOVA_OFFSET;
import static io.srdnic.ffm.rte_mbuf.BUF_LEN_OFFSET;
import static io.srdnic.ffm.rte_mbuf.DATA_LEN_OFFSET;
import static io.srdnic.ffm.rte_mbuf.DATA_OFF_OFFSET;
import static io.srdnic.ffm.rte_mbuf.HASH_RSS_OFFSET;
import static io.srdnic.ffm.rte_mbuf.NB_SEGS_OFFSET;
import static io.srdnic.ffm.rte_mbuf.NEXT_OFFSET;
import static io.srdnic.ffm.rte_mbuf.OL_FLAGS_OFFSET;
import static io.srdnic.ffm.rte_mbuf.PKT_LEN_OFFSET;
import static io.srdnic.ffm.rte_mbuf.PORT_OFFSET;
import static io.srdnic.ffm.rte_mbuf.RTE_MBUF_F_EXTERNAL;
import static io.srdnic.ffm.rte_mbuf.RTE_MBUF_F_TX_IPV4;
import static io.srdnic.ffm.rte_mbuf.RTE_MBUF_F_TX_UDP_CKSUM;
import static io.srdnic.ffm.rte_mbuf.SHINFO_OFFSET;
import static io.srdnic.ffm.rte_mbuf.TX_OFFLOAD_OFFSET;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Flyweight over one {@code struct rte_mbuf} segment, by address: a DPDK mbuf or a SimPort buffer
 * of the same shape, which the code above cannot tell apart.
 * <p>
 * Data accessors take offsets from the start of this segment's data and are bounds-checked against
 * its data room, so a bad offset throws instead of scribbling on native memory. Multi-byte network
 * fields are big-endian ({@code *BE}). A frame may span a chain of segments ({@link #segmentCount()}
 * &gt; 1, {@link #next()}): {@link #dataLength()} is this segment only, {@link #packetLength()} the
 * whole frame.
 * <p>
 * Not thread-safe; one flyweight per owner, re-pointed with {@link #wrap(long)}. {@code wrap} reads
 * where the data room starts and how long it is once: the data accessors then cost one compare
 * and one access each, where re-reading three header fields per access (the JIT cannot keep them
 * across stores to native memory) made writing a frame's headers several times slower. Whoever
 * moves {@code data_off} or {@code buf_addr} under a wrapped flyweight wraps it again.
 */
public final class Mbuf {
    /** All of native memory, addressed absolutely: one segment, no per-packet allocation. */
    static final MemorySegment NATIVE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfShort SHORT_BE = SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfInt INT_BE = INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfLong LONG_BE = LONG.withOrder(ByteOrder.BIG_ENDIAN);
    private static final boolean NATIVE_ORDER_IS_LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private long address;
    /** Absolute address of the first data byte, as of {@link #wrap}. */
    private long base;
    /** Bytes of data room from {@link #base}, as of {@link #wrap}. */
    private int room;

    /** Points this flyweight at the rte_mbuf at {@code address}; returns this. */
    public Mbuf wrap(long address) {
        this.address = address;
        int dataOffset = Short.toUnsignedInt(NATIVE.get(SHORT, address + DATA_OFF_OFFSET));
        this.base = NATIVE.get(LONG, address + BUF_ADDR_OFFSET) + dataOffset;
        this.room = Short.toUnsignedInt(NATIVE.get(SHORT, address + BUF_LEN_OFFSET)) - dataOffset;
        return this;
    }

    public long address() {
        return address;
    }

    /** Bytes of frame data in this segment. */
    public int dataLength() {
        return Short.toUnsignedInt(NATIVE.get(SHORT, address + DATA_LEN_OFFSET));
    }

    /** Bytes of the whole frame, over all segments. */
    public int packetLength() {
        return NATIVE.get(INT, address + PKT_LEN_OFFSET);
    }

    /** Sets the frame length of a single-segment mbuf (data_len and pkt_len); throws if it does not fit. */
    public Mbuf frameLength(int length) {
        if (length < 0 || length > capacity()) {
            throw new IndexOutOfBoundsException("frame length " + length + " outside 0.." + capacity());
        }
        NATIVE.set(SHORT, address + DATA_LEN_OFFSET, (short) length);
        NATIVE.set(INT, address + PKT_LEN_OFFSET, length);
        return this;
    }

    /** Offset of the data from the buffer start (the headroom in front of the frame). */
    public int dataOffset() {
        return Short.toUnsignedInt(NATIVE.get(SHORT, address + DATA_OFF_OFFSET));
    }

    public int bufferLength() {
        return Short.toUnsignedInt(NATIVE.get(SHORT, address + BUF_LEN_OFFSET));
    }

    /** Room for data in this segment: buffer length less headroom. */
    public int capacity() {
        return bufferLength() - dataOffset();
    }

    public int segmentCount() {
        return Short.toUnsignedInt(NATIVE.get(SHORT, address + NB_SEGS_OFFSET));
    }

    /** Address of the next segment, or 0 for the last one. */
    public long next() {
        return NATIVE.get(LONG, address + NEXT_OFFSET);
    }

    public int port() {
        return Short.toUnsignedInt(NATIVE.get(SHORT, address + PORT_OFFSET));
    }

    /** RSS hash the NIC computed; meaningful when {@code offloadFlags()} has RTE_MBUF_F_RX_RSS_HASH. */
    public int rssHash() {
        return NATIVE.get(INT, address + HASH_RSS_OFFSET);
    }

    public long offloadFlags() {
        return NATIVE.get(LONG, address + OL_FLAGS_OFFSET);
    }

    public Mbuf offloadFlags(long flags) {
        NATIVE.set(LONG, address + OL_FLAGS_OFFSET, flags);
        return this;
    }

    /**
     * Points this fresh mbuf's data at {@code length} bytes of external memory at {@code memory}, as
     * {@code rte_pktmbuf_attach_extbuf} does (no downcall: it is static inline), released through the
     * shared info at {@code sharedInfo} ({@link ExternalBuffers}) when the driver frees the mbuf. The
     * IOVA is the virtual address: right for drivers that read with the CPU (net_memif, the
     * simulator); a DMA-capable NIC needs the memory mapped for DMA first (rte_extmem_register,
     * rte_dev_dma_map), which srdnic does not do. The data is the whole buffer (no headroom).
     */
    public Mbuf attachExternal(long memory, int length, long sharedInfo) {
        if (length <= 0 || length > 0xFFFF) {
            throw new IllegalArgumentException("external buffer length " + length + " outside 1..65535");
        }
        NATIVE.set(LONG, address + BUF_ADDR_OFFSET, memory);
        NATIVE.set(LONG, address + BUF_IOVA_OFFSET, memory);
        NATIVE.set(SHORT, address + BUF_LEN_OFFSET, (short) length);
        NATIVE.set(SHORT, address + DATA_OFF_OFFSET, (short) 0);
        NATIVE.set(SHORT, address + DATA_LEN_OFFSET, (short) length);
        NATIVE.set(INT, address + PKT_LEN_OFFSET, length);
        NATIVE.set(LONG, address + OL_FLAGS_OFFSET, NATIVE.get(LONG, address + OL_FLAGS_OFFSET) | RTE_MBUF_F_EXTERNAL);
        NATIVE.set(LONG, address + SHINFO_OFFSET, sharedInfo);
        return wrap(address);
    }

    /**
     * Asks the NIC to fill in the UDP checksum of this IPv4 frame (the checksum field must hold the
     * pseudo-header's sum): ol_flags TX_IPV4 | TX_UDP_CKSUM, and the Ethernet and IPv4 header lengths.
     */
    public Mbuf offloadUdpChecksum(int l2Length, int l3Length) {
        long flags = NATIVE.get(LONG, address + OL_FLAGS_OFFSET);
        NATIVE.set(LONG, address + OL_FLAGS_OFFSET, flags | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_UDP_CKSUM);
        NATIVE.set(LONG, address + TX_OFFLOAD_OFFSET, (long) l2Length | ((long) l3Length << 7));
        return this;
    }

    /** Whether this mbuf's data is an external buffer ({@link #attachExternal}). */
    public boolean isExternal() {
        return (offloadFlags() & RTE_MBUF_F_EXTERNAL) != 0;
    }

    /** Makes this single-segment mbuf the head of a two-segment frame with the mbuf at {@code tail} after it. */
    public Mbuf chain(long tail) {
        int tailLength = Short.toUnsignedInt(NATIVE.get(SHORT, tail + DATA_LEN_OFFSET));
        NATIVE.set(LONG, address + NEXT_OFFSET, tail);
        NATIVE.set(SHORT, address + NB_SEGS_OFFSET, (short) 2);
        NATIVE.set(INT, address + PKT_LEN_OFFSET, dataLength() + tailLength);
        return this;
    }

    /** Detaches whatever follows this segment: one segment again, of its own data length. */
    public Mbuf unchain() {
        NATIVE.set(LONG, address + NEXT_OFFSET, 0L);
        NATIVE.set(SHORT, address + NB_SEGS_OFFSET, (short) 1);
        NATIVE.set(INT, address + PKT_LEN_OFFSET, dataLength());
        return this;
    }

    /** Absolute address of the first data byte. */
    public long dataAddress() {
        return NATIVE.get(LONG, address + BUF_ADDR_OFFSET) + dataOffset();
    }

    /** This segment's data as a segment (a view: valid while this mbuf is owned). */
    public MemorySegment data() {
        return NATIVE.asSlice(dataAddress(), dataLength());
    }

    /** This segment's whole data room, for building a frame before {@link #frameLength(int)}. */
    public MemorySegment room() {
        return NATIVE.asSlice(dataAddress(), capacity());
    }

    public byte getByte(int offset) {
        return NATIVE.get(ValueLayout.JAVA_BYTE, at(offset, 1));
    }

    public Mbuf putByte(int offset, byte value) {
        NATIVE.set(ValueLayout.JAVA_BYTE, at(offset, 1), value);
        return this;
    }

    public short getShortBE(int offset) {
        return NATIVE.get(SHORT_BE, at(offset, 2));
    }

    public Mbuf putShortBE(int offset, short value) {
        NATIVE.set(SHORT_BE, at(offset, 2), value);
        return this;
    }

    public int getIntBE(int offset) {
        return NATIVE.get(INT_BE, at(offset, 4));
    }

    public Mbuf putIntBE(int offset, int value) {
        NATIVE.set(INT_BE, at(offset, 4), value);
        return this;
    }

    public long getLongBE(int offset) {
        return NATIVE.get(LONG_BE, at(offset, 8));
    }

    public Mbuf putLongBE(int offset, long value) {
        NATIVE.set(LONG_BE, at(offset, 8), value);
        return this;
    }

    /** Copies {@code length} bytes from {@code src} at {@code srcOffset} into this segment's data room. */
    public Mbuf copyFrom(MemorySegment src, long srcOffset, int offset, int length) {
        MemorySegment.copy(src, srcOffset, NATIVE, at(offset, length), length);
        return this;
    }

    /**
     * Copies {@code length} bytes of {@code src}'s data from {@code srcOffset} into this segment's
     * data room at {@code offset}: native to native, no segment view made.
     */
    public Mbuf copyFrom(Mbuf src, int srcOffset, int offset, int length) {
        MemorySegment.copy(NATIVE, src.at(srcOffset, length), NATIVE, at(offset, length), length);
        return this;
    }

    /** Copies {@code length} bytes of this segment's data into {@code dst} at {@code dstOffset}. */
    public void copyTo(int offset, MemorySegment dst, long dstOffset, int length) {
        MemorySegment.copy(NATIVE, at(offset, length), dst, dstOffset, length);
    }

    /**
     * The ones'-complement sum (RFC 1071, not yet folded or inverted) of {@code length} bytes of
     * this segment's data from {@code offset}, added to {@code initial}: one bounds check, then
     * eight bytes a step. For IPv4 and UDP checksums.
     */
    public long onesComplementSum(int offset, int length, long initial) {
        long base = at(offset, length);
        // RFC 1071 §2(B): the sum is byte-order independent, so add native-order words (no swap per
        // load) and swap the folded 16-bit result once at the end.
        long sum = 0;
        long other = 0; // a second chain of additions, so that two words' sums run side by side
        int i = 0;
        for (; i + 32 <= length; i += 32) {
            long w0 = NATIVE.get(LONG, base + i);
            long w1 = NATIVE.get(LONG, base + i + 8);
            long w2 = NATIVE.get(LONG, base + i + 16);
            long w3 = NATIVE.get(LONG, base + i + 24);
            sum += (w0 >>> 32) + (w0 & 0xFFFF_FFFFL) + (w2 >>> 32) + (w2 & 0xFFFF_FFFFL);
            other += (w1 >>> 32) + (w1 & 0xFFFF_FFFFL) + (w3 >>> 32) + (w3 & 0xFFFF_FFFFL);
        }
        sum += other;
        for (; i + 8 <= length; i += 8) {
            long w = NATIVE.get(LONG, base + i);
            sum += (w >>> 32) + (w & 0xFFFF_FFFFL);
        }
        // The last 0..7 bytes: at most one int, one short and one byte, no loop.
        if (i + 4 <= length) {
            sum += Integer.toUnsignedLong(NATIVE.get(INT, base + i));
            i += 4;
        }
        if (i + 2 <= length) {
            sum += Short.toUnsignedInt(NATIVE.get(SHORT, base + i));
            i += 2;
        }
        if (i < length) {
            sum += NATIVE.get(ValueLayout.JAVA_BYTE, base + i) & 0xFF; // low byte first in little-endian order
        }
        // At most 2^13 additions of 33-bit values fit 46 bits: four folds reach 16 bits, no loop.
        sum = (sum & 0xFFFF_FFFFL) + (sum >>> 32);
        sum = (sum & 0xFFFF_FFFFL) + (sum >>> 32);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        if (NATIVE_ORDER_IS_LITTLE) {
            sum = Short.toUnsignedInt(Short.reverseBytes((short) sum));
        }
        return initial + sum;
    }

    private long at(int offset, int length) {
        if (offset < 0 || length < 0 || offset > room - length) {
            throw new IndexOutOfBoundsException("bytes " + offset + ".." + ((long) offset + length) + " outside the data room of " + room);
        }
        return base + offset;
    }

    @Override
    public String toString() {
        return "Mbuf@" + Long.toHexString(address) + "[len=" + dataLength() + ", pkt=" + packetLength() + ", segs=" + segmentCount() + "]";
    }
}
