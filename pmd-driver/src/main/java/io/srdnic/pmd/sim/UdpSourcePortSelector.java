package io.srdnic.pmd.sim;

import io.srdnic.pmd.Mbuf;

/**
 * The default {@link PathSelector}: {@code udpSourcePort % pathCount} for an IPv4/UDP frame, path 0
 * for anything else. SRD, RoCEv2 and UET put a flow's path entropy in the UDP source port, so this
 * is how a real ECMP fabric would spray them (with the identity for a hash).
 */
public final class UdpSourcePortSelector {
    static final int ETHERTYPE_OFFSET = 12;
    static final int ETHERTYPE_IPV4 = 0x0800;
    static final int IPV4_OFFSET = 14;
    static final int IPV4_MIN_HEADER_LENGTH = 20;
    static final int IPV4_FRAGMENT_OFFSET = 6;
    static final int IPV4_PROTOCOL_OFFSET = 9;
    static final int IPPROTO_UDP = 17;
    /** Fragment offset bits of the flags/fragment field: a later fragment carries no UDP header. */
    static final int FRAGMENT_OFFSET_MASK = 0x1FFF;

    private UdpSourcePortSelector() {
    }

    /** {@code udpSourcePort(frame) % pathCount}, or 0 when the frame is not IPv4/UDP. */
    public static int selectPath(Mbuf frame, int pathCount) {
        int port = udpSourcePort(frame);
        return port < 0 ? 0 : port % pathCount;
    }

    /**
     * The UDP source port of an IPv4/UDP frame, honouring the IPv4 header length (IHL); -1 when the
     * frame is not IPv4, not UDP, a non-first fragment, or too short to hold the port.
     */
    public static int udpSourcePort(Mbuf frame) {
        int length = frame.dataLength();
        if (length < IPV4_OFFSET + IPV4_MIN_HEADER_LENGTH + 2
            || Short.toUnsignedInt(frame.getShortBE(ETHERTYPE_OFFSET)) != ETHERTYPE_IPV4) {
            return -1;
        }
        int versionAndIhl = frame.getByte(IPV4_OFFSET) & 0xFF;
        int headerLength = (versionAndIhl & 0x0F) * 4;
        if ((versionAndIhl >>> 4) != 4 || headerLength < IPV4_MIN_HEADER_LENGTH
            || (frame.getByte(IPV4_OFFSET + IPV4_PROTOCOL_OFFSET) & 0xFF) != IPPROTO_UDP
            || (frame.getShortBE(IPV4_OFFSET + IPV4_FRAGMENT_OFFSET) & FRAGMENT_OFFSET_MASK) != 0
            || length < IPV4_OFFSET + headerLength + 2) {
            return -1;
        }
        return Short.toUnsignedInt(frame.getShortBE(IPV4_OFFSET + headerLength));
    }
}
