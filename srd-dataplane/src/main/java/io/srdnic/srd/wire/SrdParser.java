package io.srdnic.srd.wire;

import io.srdnic.pmd.Mbuf;

/**
 * Validates a received frame as an SRD packet: the L2-L4 headers, then the SRD header of its type.
 * Returns the packet type, or a negative code whose {@link Ipv4UdpFrame#error(int)} says why not;
 * never throws on any frame content.
 */
public final class SrdParser {
    /** QPNs are 24 bits, as in InfiniBand. */
    public static final int MAX_QPN = 0xFF_FFFF;

    private SrdParser() {
    }

    public static int parse(Mbuf m, int srdPort, int mtu) {
        int srdLength = Ipv4UdpFrame.check(m, srdPort);
        if (srdLength < 0) {
            return srdLength;
        }
        if (srdLength < 1) {
            return Ipv4UdpFrame.fail(ParseError.TRUNCATED);
        }
        if (SrdHeader.version(m) != SrdHeader.VERSION) {
            return Ipv4UdpFrame.fail(ParseError.WRONG_VERSION);
        }
        int type = SrdHeader.type(m);
        if (PacketType.isData(type) || type == PacketType.PROBE || type == PacketType.PROBE_REPLY) {
            if (srdLength < SrdHeader.LENGTH) {
                return Ipv4UdpFrame.fail(ParseError.TRUNCATED);
            }
            int payload = SrdHeader.payloadLength(m);
            if (payload > mtu) {
                return Ipv4UdpFrame.fail(ParseError.OVERSIZED);
            }
            if (payload != srdLength - SrdHeader.LENGTH || (!PacketType.isData(type) && payload != 0)
                || payload < PacketType.extendedHeaderLength(type)) {
                return Ipv4UdpFrame.fail(ParseError.BAD_LENGTH);
            }
            if (Integer.compareUnsigned(SrdHeader.sourceQpn(m), MAX_QPN) > 0
                    || Integer.compareUnsigned(SrdHeader.destinationQpn(m), MAX_QPN) > 0) {
                return Ipv4UdpFrame.fail(ParseError.OUT_OF_RANGE);
            }
            return type;
        }
        if (type == PacketType.ACK) {
            if (srdLength < SrdAck.LENGTH) {
                return Ipv4UdpFrame.fail(ParseError.TRUNCATED);
            }
            int drops = SrdAck.dropCount(m);
            if (drops > SrdAck.MAX_DROPS) {
                return Ipv4UdpFrame.fail(ParseError.OVERSIZED);
            }
            if (srdLength != SrdAck.length(drops)) {
                return Ipv4UdpFrame.fail(ParseError.BAD_LENGTH);
            }
            for (int i = 0; i < drops; i++) {
                if (!DropReason.isValid(SrdAck.dropReason(m, i))) {
                    return Ipv4UdpFrame.fail(ParseError.OUT_OF_RANGE);
                }
            }
            return type;
        }
        return Ipv4UdpFrame.fail(ParseError.UNKNOWN_TYPE);
    }
}
