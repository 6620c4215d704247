package io.srdnic.srd.wire;

import io.srdnic.pmd.Mbuf;

/** The Internet checksum (RFC 1071) over frame bytes, for IPv4 headers and UDP. */
public final class Checksums {
    private Checksums() {
    }

    /** Ones'-complement sum of {@code length} bytes at {@code offset}, not yet folded or inverted. */
    public static long sum(Mbuf m, int offset, int length, long initial) {
        return m.onesComplementSum(offset, length, initial);
    }

    /**
     * The checksum of the IPv4 header {@link Ipv4UdpFrame#write} writes (version 4, IHL 5, DSCP 0,
     * id 0, don't fragment, no options), computed from its fields rather than read back from the
     * frame: one sum over 20 bytes of memory less per frame sent.
     */
    public static int ipv4Header(int totalLength, int ttl, int protocol, int srcIp, int dstIp) {
        long sum = 0x4500L + totalLength + 0x4000 + ((ttl << 8) | protocol)
            + (srcIp >>> 16) + (srcIp & 0xFFFF) + (dstIp >>> 16) + (dstIp & 0xFFFF);
        return finish(sum);
    }

    /** Folds a sum to 16 bits and inverts it. */
    public static int finish(long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) (~sum & 0xFFFF);
    }
}
