package io.srdnic.srd.wire;

/**
 * Where each header starts in an SRD frame: Ethernet II, IPv4 without options, UDP, SRD.
 * <pre>
 *  0              14                    34        42                 42+SRD header
 *  +--------------+---------------------+---------+------------------+-----------
 *  | Ethernet II  | IPv4 (IHL 5)        | UDP     | SRD header       | payload
 *  +--------------+---------------------+---------+------------------+-----------
 * </pre>
 * Byte-level layout: docs/wire-format.md.
 */
public final class FrameLayout {
    public static final int ETHERNET_OFFSET = 0;
    public static final int ETHERNET_LENGTH = 14;
    public static final int IPV4_OFFSET = ETHERNET_OFFSET + ETHERNET_LENGTH;
    public static final int IPV4_LENGTH = 20;
    public static final int UDP_OFFSET = IPV4_OFFSET + IPV4_LENGTH;
    public static final int UDP_LENGTH = 8;
    public static final int SRD_OFFSET = UDP_OFFSET + UDP_LENGTH;
    /** Ethernet + IPv4 + UDP. */
    public static final int L2_L4_LENGTH = SRD_OFFSET;
    /** The shortest Ethernet frame without its CRC: shorter frames are padded to it. */
    public static final int MIN_FRAME_LENGTH = 60;

    public static final short ETHERTYPE_IPV4 = 0x0800;
    public static final int IP_PROTOCOL_UDP = 17;

    private FrameLayout() {
    }
}
