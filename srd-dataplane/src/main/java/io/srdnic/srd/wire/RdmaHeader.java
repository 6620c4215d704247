package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;

import io.srdnic.pmd.Mbuf;

/**
 * The RDMA extended header (24 bytes, big-endian, like InfiniBand's RETH) that follows the SRD
 * header of RDMA_WRITE, RDMA_WRITE_WITH_IMM and RDMA_READ packets; the SRD payload length counts it.
 * Every packet of a request names the whole request (address, rkey, length), so the responder
 * checks the whole range on each one and a request that would stray outside its region changes
 * nothing at all, whichever of its packets arrives first.
 * <pre>
 *   0                                                               8
 *   +---------------------------------------------------------------+
 *   | remote address: where the request starts                      |
 *   +-------------------------------+-------------------------------+
 *   8                              12                              16
 *   | rkey                          | length: the whole WRITE's     |
 *   |                               |  bytes, or the bytes to READ  |
 *   +-------------------------------+-------------------------------+
 *  16                              20                              24
 *   | offset of this packet's data  | reserved (0)                  |
 *   |  in the request (READ: 0)     |                               |
 *   +-------------------------------+-------------------------------+
 * </pre>
 */
public final class RdmaHeader {
    public static final int LENGTH = 24;
    public static final int ADDRESS_OFFSET = SrdHeader.LENGTH;
    public static final int RKEY_OFFSET = SrdHeader.LENGTH + 8;
    public static final int DMA_LENGTH_OFFSET = SrdHeader.LENGTH + 12;
    public static final int SEGMENT_OFFSET_OFFSET = SrdHeader.LENGTH + 16;
    public static final int RESERVED_OFFSET = SrdHeader.LENGTH + 20;
    /** The largest RDMA message a request may name (its DMA length), on every QP type; reported by queryDevice. */
    public static final int MAX_DMA_LENGTH = 1 << 30;
    /** Where the data of an RDMA packet starts in the frame. */
    public static final int DATA_OFFSET = SrdHeader.PAYLOAD_OFFSET + LENGTH;

    private RdmaHeader() {
    }

    public static long address(Mbuf m) {
        return m.getLongBE(SRD_OFFSET + ADDRESS_OFFSET);
    }

    public static int rkey(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + RKEY_OFFSET);
    }

    /** The length field: unsigned, at most 2^31 - 1 on an honest wire (the largest RDMA request is 1 GiB). */
    public static int dmaLength(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + DMA_LENGTH_OFFSET);
    }

    /** Where this packet's data goes in the request (unsigned on an honest wire: below the length). */
    public static int segmentOffset(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + SEGMENT_OFFSET_OFFSET);
    }

    public static void write(Mbuf m, long address, int rkey, int dmaLength, int segmentOffset) {
        m.putLongBE(SRD_OFFSET + ADDRESS_OFFSET, address);
        m.putIntBE(SRD_OFFSET + RKEY_OFFSET, rkey);
        m.putIntBE(SRD_OFFSET + DMA_LENGTH_OFFSET, dmaLength);
        m.putIntBE(SRD_OFFSET + SEGMENT_OFFSET_OFFSET, segmentOffset);
        m.putIntBE(SRD_OFFSET + RESERVED_OFFSET, 0);
    }

    /**
     * Whether an RDMA request packet's header agrees with itself: a length of 0..{@code maxLength};
     * a READ carries no data and names offset 0; a WRITE segment's data lies inside the write.
     */
    public static boolean isConsistent(Mbuf m, boolean read, int maxLength) {
        int data = SrdHeader.payloadLength(m) - LENGTH;
        int length = dmaLength(m);
        int at = segmentOffset(m);
        return length >= 0 && length <= maxLength && at >= 0 && (read ? data == 0 && at == 0 : (long) at + data <= length);
    }
}
