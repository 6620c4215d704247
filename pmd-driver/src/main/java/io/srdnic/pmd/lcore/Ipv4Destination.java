package io.srdnic.pmd.lcore;

import io.srdnic.pmd.Mbuf;

/**
 * The flow key frames are steered by: the destination address of an IPv4 frame. Each context of
 * a steered port has an address of its own. Not the UDP ports: SRD answers every peer on the one
 * UDP port the fabric uses (the wire does not say which port a sender listens on), so contexts
 * cannot differ by destination port, and the source port varies per path for ECMP entropy.
 * Read straight from the frame (the driver below the transport knows no SRD headers), within the
 * bounds the flyweight checks; a frame that is not IPv4 has no key.
 */
public final class Ipv4Destination {
    /** What {@link #of} says of a frame that is not IPv4 or too short to tell. */
    public static final long NONE = -1;
    private static final int ETHERTYPE_OFFSET = 12;
    private static final short ETHERTYPE_IPV4 = 0x0800;
    private static final int IPV4_OFFSET = 14;
    private static final int DESTINATION_OFFSET = IPV4_OFFSET + 16;

    private Ipv4Destination() {
    }

    /** The IPv4 destination address (0..2^32-1) of the frame {@code m} is wrapped on, or {@link #NONE}. */
    public static long of(Mbuf m) {
        if (m.dataLength() < DESTINATION_OFFSET + 4 || m.getShortBE(ETHERTYPE_OFFSET) != ETHERTYPE_IPV4
            || (m.getByte(IPV4_OFFSET) & 0xF0) != 0x40) {
            return NONE;
        }
        return Integer.toUnsignedLong(m.getIntBE(DESTINATION_OFFSET));
    }
}
