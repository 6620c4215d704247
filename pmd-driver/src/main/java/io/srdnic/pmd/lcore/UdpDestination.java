package io.srdnic.pmd.lcore;

import io.srdnic.pmd.Mbuf;

/**
 * The flow key frames are steered by: the UDP destination port of an IPv4 frame. Never the source
 * port, which SRD varies per path for ECMP entropy, so one flow's frames carry many source ports.
 * Read straight from the frame (the driver below the transport knows no SRD headers), with the
 * bounds the flyweight checks; anything that is not IPv4/UDP has no key.
 */
public final class UdpDestination {
    /** What {@link #port} says of a frame that is not IPv4/UDP or too short to tell. */
    public static final int NONE = -1;
    private static final int ETHERTYPE_OFFSET = 12;
    private static final short ETHERTYPE_IPV4 = 0x0800;
    private static final int IPV4_OFFSET = 14;
    private static final int PROTOCOL_UDP = 17;

    private UdpDestination() {
    }

    /** The UDP destination port of the frame in {@code m} (whose flyweight is wrapped on it), or {@link #NONE}. */
    public static int port(Mbuf m) {
        int length = m.dataLength();
        if (length < IPV4_OFFSET + 20 || m.getShortBE(ETHERTYPE_OFFSET) != ETHERTYPE_IPV4) {
            return NONE;
        }
        int versionAndLength = m.getByte(IPV4_OFFSET) & 0xFF;
        int headerLength = (versionAndLength & 0x0F) * 4;
        if (versionAndLength >>> 4 != 4 || headerLength < 20 || (m.getByte(IPV4_OFFSET + 9) & 0xFF) != PROTOCOL_UDP) {
            return NONE;
        }
        if ((m.getShortBE(IPV4_OFFSET + 6) & 0x1FFF) != 0) {
            return NONE; // a later fragment: no UDP header in it
        }
        int udp = IPV4_OFFSET + headerLength;
        if (length < udp + 8) {
            return NONE;
        }
        return Short.toUnsignedInt(m.getShortBE(udp + 2));
    }
}
