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

    /** Folds a sum to 16 bits and inverts it. */
    public static int finish(long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) (~sum & 0xFFFF);
    }
}
