package io.srdnic.pmd;

/**
 * Test frames: broadcast Ethernet header, a sequence number, then a payload derived from it, so a
 * receiver can tell an intact frame from a corrupted one without keeping copies.
 */
final class FrameStamp {
    static final short ETHERTYPE_EXPERIMENTAL = (short) 0x88B5;

    private FrameStamp() {
    }

    static void write(Mbuf m, long seq, int length) {
        m.putLongBE(0, 0xFFFF_FFFF_FFFF_0000L | 0x02);
        m.putIntBE(8, 0);
        m.putShortBE(12, ETHERTYPE_EXPERIMENTAL);
        m.putLongBE(14, seq);
        for (int off = 22; off < length; off++) {
            m.putByte(off, (byte) (seq * 31 + off));
        }
        m.frameLength(length);
    }

    /** The sequence number, or -1 if the frame is not intact. */
    static long read(Mbuf m, int length) {
        if (m.packetLength() != length || m.segmentCount() != 1 || m.getShortBE(12) != ETHERTYPE_EXPERIMENTAL) {
            return -1;
        }
        long seq = m.getLongBE(14);
        for (int off = 22; off < length; off++) {
            if (m.getByte(off) != (byte) (seq * 31 + off)) {
                return -1;
            }
        }
        return seq;
    }
}
