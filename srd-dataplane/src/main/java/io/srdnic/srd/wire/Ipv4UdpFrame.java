package io.srdnic.srd.wire;

import static io.srdnic.ffm.rte_mbuf.RTE_MBUF_F_RX_L4_CKSUM_BAD;
import static io.srdnic.ffm.rte_mbuf.RTE_MBUF_F_RX_L4_CKSUM_GOOD;
import static io.srdnic.srd.wire.FrameLayout.ETHERTYPE_IPV4;
import static io.srdnic.srd.wire.FrameLayout.IPV4_LENGTH;
import static io.srdnic.srd.wire.FrameLayout.IPV4_OFFSET;
import static io.srdnic.srd.wire.FrameLayout.IP_PROTOCOL_UDP;
import static io.srdnic.srd.wire.FrameLayout.MIN_FRAME_LENGTH;
import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;
import static io.srdnic.srd.wire.FrameLayout.UDP_LENGTH;
import static io.srdnic.srd.wire.FrameLayout.UDP_OFFSET;

import io.srdnic.pmd.Mbuf;

/**
 * Writes and checks the Ethernet / IPv4 / UDP headers in front of an SRD header. The UDP source
 * port carries the path entropy (ECMP hashes on it); the destination port names SRD.
 */
public final class Ipv4UdpFrame {
    private static final int TTL = 64;

    private Ipv4UdpFrame() {
    }

    /**
     * Writes the three headers for an SRD message of {@code srdLength} bytes (SRD header + payload),
     * sets the frame length (padded to 60), and fills both checksums (UDP's only if asked: 0 means none).
     */
    public static void write(Mbuf m, long srcMac, long dstMac, int srcIp, int dstIp, int srcPort, int dstPort,
                             int srdLength, boolean udpChecksum) {
        write(m, srcMac, dstMac, srcIp, dstIp, srcPort, dstPort, srdLength, udpChecksum, 0, 0);
    }

    /**
     * As {@link #write(Mbuf, long, long, int, int, int, int, int, boolean)}, the first {@code summedBytes}
     * (even) of the SRD part already written and summed to {@code summed} by the caller ({@link
     * SrdHeader#write}'s return): the UDP checksum reads only the bytes after them. The UDP header's
     * own words are summed from their values too, never read back from the stores just made.
     */
    public static void write(Mbuf m, long srcMac, long dstMac, int srcIp, int dstIp, int srcPort, int dstPort,
                             int srdLength, boolean udpChecksum, long summed, int summedBytes) {
        int udpTotal = headers(m, srcMac, dstMac, srcIp, dstIp, srcPort, dstPort, srdLength);
        int frame = SRD_OFFSET + srdLength;
        if (frame < MIN_FRAME_LENGTH) {
            for (int i = frame; i < MIN_FRAME_LENGTH; i++) {
                m.putByte(i, (byte) 0);
            }
            frame = MIN_FRAME_LENGTH;
        }
        m.frameLength(frame);
        if (udpChecksum) {
            // pseudo-header, then the UDP header (its checksum field 0 for the sum): ports and length
            long sum = pseudoHeader(srcIp, dstIp, udpTotal) + (srcPort & 0xFFFF) + (dstPort & 0xFFFF) + (udpTotal & 0xFFFF) + summed;
            putUdpChecksum(m, Checksums.sum(m, SRD_OFFSET + summedBytes, srdLength - summedBytes, sum));
        }
    }

    /**
     * As {@link #write}, for a frame whose last bytes are the segment {@code tail} (an external buffer:
     * the payload in the sender's memory), which is chained behind {@code m}; {@code m} holds the rest
     * of the {@code srdLength} bytes. The UDP checksum, if asked, reads the payload where it is. Frames
     * this long need no padding.
     */
    public static void writeChained(Mbuf m, Mbuf tail, long srcMac, long dstMac, int srcIp, int dstIp, int srcPort, int dstPort,
                                    int srdLength, boolean udpChecksum) {
        int udpTotal = headers(m, srcMac, dstMac, srcIp, dstIp, srcPort, dstPort, srdLength);
        int tailLength = tail.dataLength();
        int inHead = udpTotal - tailLength;
        if ((inHead & 1) != 0 || SRD_OFFSET + srdLength < MIN_FRAME_LENGTH) {
            // an odd split would shift the tail's bytes in the 16-bit sum; SRD's headers are all even
            throw new IllegalArgumentException("a chained frame's head must end on an even UDP offset, was " + inHead);
        }
        m.frameLength(UDP_OFFSET + inHead);
        if (udpChecksum) {
            long sum = Checksums.sum(tail, 0, tailLength, Checksums.sum(m, UDP_OFFSET, inHead, pseudoHeader(srcIp, dstIp, udpTotal)));
            putUdpChecksum(m, sum);
        }
        m.chain(tail.address());
    }

    /** The Ethernet, IPv4 (with its checksum) and UDP headers, the UDP checksum 0; returns the UDP length. */
    private static int headers(Mbuf m, long srcMac, long dstMac, int srcIp, int dstIp, int srcPort, int dstPort, int srdLength) {
        m.putShortBE(0, (short) (dstMac >>> 32));
        m.putIntBE(2, (int) dstMac);
        m.putShortBE(6, (short) (srcMac >>> 32));
        m.putIntBE(8, (int) srcMac);
        m.putShortBE(12, ETHERTYPE_IPV4);
        int ipTotal = IPV4_LENGTH + UDP_LENGTH + srdLength;
        m.putIntBE(IPV4_OFFSET, 0x4500_0000 | ipTotal);      // version 4, IHL 5, DSCP 0, total length
        m.putIntBE(IPV4_OFFSET + 4, 0x0000_4000);             // id 0, don't fragment
        m.putIntBE(IPV4_OFFSET + 8, (TTL << 24) | (IP_PROTOCOL_UDP << 16)); // checksum 0 for now
        m.putIntBE(IPV4_OFFSET + 12, srcIp);
        m.putIntBE(IPV4_OFFSET + 16, dstIp);
        m.putShortBE(IPV4_OFFSET + 10, (short) Checksums.ipv4Header(ipTotal, TTL, IP_PROTOCOL_UDP, srcIp, dstIp));
        int udpTotal = UDP_LENGTH + srdLength;
        m.putShortBE(UDP_OFFSET, (short) srcPort);
        m.putShortBE(UDP_OFFSET + 2, (short) dstPort);
        m.putShortBE(UDP_OFFSET + 4, (short) udpTotal);
        m.putShortBE(UDP_OFFSET + 6, (short) 0);
        return udpTotal;
    }

    private static void putUdpChecksum(Mbuf m, long sum) {
        int c = Checksums.finish(sum);
        m.putShortBE(UDP_OFFSET + 6, (short) (c == 0 ? 0xFFFF : c)); // 0 means "no checksum" in UDP
    }

    /**
     * Hands the UDP checksum of a frame {@link #write} or {@link #writeChained} wrote with the checksum
     * off to the NIC: the field holds the pseudo-header's sum, folded and not inverted, as a NIC's
     * checksum offload wants it, and the mbuf asks for the offload with the header lengths.
     */
    public static void offloadUdpChecksum(Mbuf m) {
        int srcIp = m.getIntBE(IPV4_OFFSET + 12);
        int dstIp = m.getIntBE(IPV4_OFFSET + 16);
        int udpTotal = Short.toUnsignedInt(m.getShortBE(UDP_OFFSET + 4));
        long sum = pseudoHeader(srcIp, dstIp, udpTotal);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        m.putShortBE(UDP_OFFSET + 6, (short) sum);
        m.offloadUdpChecksum(FrameLayout.ETHERNET_LENGTH, IPV4_LENGTH);
    }

    private static long pseudoHeader(int srcIp, int dstIp, int udpLength) {
        return (srcIp >>> 16) + (srcIp & 0xFFFF) + (dstIp >>> 16) + (dstIp & 0xFFFF) + IP_PROTOCOL_UDP + udpLength;
    }

    /**
     * Checks the headers of a received frame addressed to {@code srdPort}; returns the length of
     * the SRD part (header + payload) or a negative {@code -(ParseError.ordinal() + 1)}.
     */
    public static int check(Mbuf m, int srdPort) {
        if (m.segmentCount() != 1) {
            return fail(ParseError.CHAINED);
        }
        int frame = m.dataLength();
        if (frame < SRD_OFFSET) {
            return fail(ParseError.TRUNCATED);
        }
        if (m.getShortBE(12) != ETHERTYPE_IPV4 || (m.getByte(IPV4_OFFSET) & 0xFF) != 0x45) {
            return fail(ParseError.NOT_IPV4);
        }
        if ((m.getShortBE(IPV4_OFFSET + 6) & 0x3FFF) != 0) {
            return fail(ParseError.FRAGMENT); // more-fragments flag or a fragment offset
        }
        if ((m.getByte(IPV4_OFFSET + 9) & 0xFF) != IP_PROTOCOL_UDP || Short.toUnsignedInt(m.getShortBE(UDP_OFFSET + 2)) != srdPort) {
            return fail(ParseError.NOT_SRD_PORT);
        }
        int ipTotal = Short.toUnsignedInt(m.getShortBE(IPV4_OFFSET + 2));
        int udpTotal = Short.toUnsignedInt(m.getShortBE(UDP_OFFSET + 4));
        if (ipTotal + FrameLayout.ETHERNET_LENGTH > frame || udpTotal != ipTotal - IPV4_LENGTH || udpTotal < UDP_LENGTH) {
            return fail(ParseError.BAD_LENGTH);
        }
        if (Checksums.finish(Checksums.sum(m, IPV4_OFFSET, IPV4_LENGTH, 0)) != 0) {
            return fail(ParseError.BAD_IP_CHECKSUM);
        }
        if (m.getShortBE(UDP_OFFSET + 6) == 0) {
            return udpTotal - UDP_LENGTH; // no checksum (RFC 768), whatever a NIC made of it
        }
        long l4 = m.offloadFlags() & (RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD);
        if (l4 == RTE_MBUF_F_RX_L4_CKSUM_BAD) {
            return fail(ParseError.BAD_UDP_CHECKSUM); // the NIC checked it and found it wrong
        }
        // GOOD, or NONE (both bits: the data is whole though the field is not): the NIC checked it.
        if (l4 == 0) {
            int srcIp = m.getIntBE(IPV4_OFFSET + 12);
            int dstIp = m.getIntBE(IPV4_OFFSET + 16);
            if (Checksums.finish(Checksums.sum(m, UDP_OFFSET, udpTotal, pseudoHeader(srcIp, dstIp, udpTotal))) != 0) {
                return fail(ParseError.BAD_UDP_CHECKSUM);
            }
        }
        return udpTotal - UDP_LENGTH;
    }

    static int fail(ParseError e) {
        return -(e.ordinal() + 1);
    }

    /** The ParseError a negative result of {@link #check} or {@link SrdParser#parse} stands for. */
    public static ParseError error(int negative) {
        return ParseError.VALUES[-negative - 1];
    }

    public static long sourceMac(Mbuf m) {
        return ((long) Short.toUnsignedInt(m.getShortBE(6)) << 32) | Integer.toUnsignedLong(m.getIntBE(8));
    }

    public static int sourceIp(Mbuf m) {
        return m.getIntBE(IPV4_OFFSET + 12);
    }

    public static int destinationIp(Mbuf m) {
        return m.getIntBE(IPV4_OFFSET + 16);
    }

    public static int sourcePort(Mbuf m) {
        return Short.toUnsignedInt(m.getShortBE(UDP_OFFSET));
    }
}
