package io.srdnic.srd.testing;

import static io.srdnic.ffm.rte_mbuf.BUF_LEN_OFFSET;
import static io.srdnic.ffm.rte_mbuf.NB_SEGS_OFFSET;

import io.srdnic.pmd.Mbuf;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A frame as a byte array, read and written at the offsets of docs/wire-format.md, with an Internet
 * checksum of its own (so the codecs are checked against an independent reading of the spec, not
 * against themselves), and the rte_mbuf fields a test sets that the flyweight does not let it.
 * The fuzz targets' and the wire tests' helpers extend it, so its members read as theirs.
 */
public class FrameBytes {
    /** All of native memory, for the rte_mbuf fields the flyweight does not let us set. */
    @SuppressWarnings("restricted")
    public static final MemorySegment NATIVE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    public static final int ETHERTYPE = 12;
    public static final int IP = 14;
    public static final int IP_TOTAL_LENGTH = 16;
    public static final int IP_FLAGS = 20;
    public static final int IP_TTL = 22;
    public static final int IP_PROTOCOL = 23;
    public static final int IP_CHECKSUM = 24;
    public static final int IP_SRC = 26;
    public static final int IP_DST = 30;
    public static final int UDP = 34;
    public static final int UDP_SRC_PORT = 34;
    public static final int UDP_DST_PORT = 36;
    public static final int UDP_LENGTH = 38;
    public static final int UDP_CHECKSUM = 40;
    public static final int SRD = 42;
    public static final int SRD_HEADER = 48;
    public static final int ACK_HEADER = 72;

    protected FrameBytes() {
    }

    // ---- mbufs ------------------------------------------------------------------------------------

    /** Sets the raw buf_len so that the flyweight's data room ends {@code room} bytes after the data start. */
    public static void dataRoom(Mbuf m, int room) {
        NATIVE.set(ValueLayout.JAVA_SHORT_UNALIGNED, m.address() + BUF_LEN_OFFSET, (short) (m.dataOffset() + room));
        m.wrap(m.address()); // the flyweight reads the data room at wrap
    }

    public static void segments(Mbuf m, int n) {
        NATIVE.set(ValueLayout.JAVA_SHORT_UNALIGNED, m.address() + NB_SEGS_OFFSET, (short) n);
    }

    public static byte[] bytes(Mbuf m, int length) {
        byte[] out = new byte[length];
        m.copyTo(0, MemorySegment.ofArray(out), 0, length);
        return out;
    }

    // ---- big-endian fields of a byte[] -----------------------------------------------------------

    public static int u8(byte[] b, int at) {
        return b[at] & 0xFF;
    }

    public static int u16(byte[] b, int at) {
        return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
    }

    public static int s32(byte[] b, int at) {
        return (u16(b, at) << 16) | u16(b, at + 2);
    }

    public static long s64(byte[] b, int at) {
        return ((long) s32(b, at) << 32) | (s32(b, at + 4) & 0xFFFF_FFFFL);
    }

    public static long mac(byte[] b, int at) {
        return ((long) u16(b, at) << 32) | (s32(b, at + 2) & 0xFFFF_FFFFL);
    }

    public static void put16(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }

    public static void put32(byte[] b, int at, int v) {
        put16(b, at, v >>> 16);
        put16(b, at + 2, v);
    }

    public static void put64(byte[] b, int at, long v) {
        put32(b, at, (int) (v >>> 32));
        put32(b, at + 4, (int) v);
    }

    public static void putMac(byte[] b, int at, long mac) {
        put16(b, at, (int) (mac >>> 32));
        put32(b, at + 2, (int) mac);
    }

    // ---- an independent Internet checksum --------------------------------------------------------

    /** RFC 1071 over {@code length} bytes of {@code b} from {@code offset}, plus {@code initial}, not folded. */
    public static long sum(byte[] b, int offset, int length, long initial) {
        long sum = initial;
        for (int i = 0; i < length; i += 2) {
            int hi = b[offset + i] & 0xFF;
            int lo = i + 1 < length ? b[offset + i + 1] & 0xFF : 0;
            sum += (hi << 8) | lo;
        }
        return sum;
    }

    /** Folds to 16 bits and inverts. */
    public static int fold(long sum) {
        while ((sum >> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        return (int) (~sum & 0xFFFF);
    }

    public static int checksum(byte[] b, int offset, int length, long initial) {
        return fold(sum(b, offset, length, initial));
    }

    /** The UDP pseudo-header sum of an IPv4/UDP frame (source, destination, protocol, UDP length). */
    public static long pseudoHeader(byte[] f) {
        return u16(f, IP_SRC) + u16(f, IP_SRC + 2) + u16(f, IP_DST) + u16(f, IP_DST + 2) + 17 + u16(f, UDP_LENGTH);
    }

    public static boolean ipChecksumValid(byte[] f) {
        return checksum(f, IP, 20, 0) == 0;
    }

    /** True when the UDP checksum is 0 ("none") or verifies over the UDP length (which must fit the frame). */
    public static boolean udpChecksumValid(byte[] f, int length) {
        int udpLength = u16(f, UDP_LENGTH);
        return u16(f, UDP_CHECKSUM) == 0 || (UDP + udpLength <= length && checksum(f, UDP, udpLength, pseudoHeader(f)) == 0);
    }

    /** Writes a correct IPv4 header checksum. */
    public static void fixIpChecksum(byte[] f) {
        put16(f, IP_CHECKSUM, 0);
        put16(f, IP_CHECKSUM, checksum(f, IP, 20, 0));
    }

    /** Writes a correct UDP checksum over the UDP length (bounded by the frame), never 0. */
    public static void fixUdpChecksum(byte[] f, int length) {
        int udpLength = Math.min(u16(f, UDP_LENGTH), length - UDP);
        put16(f, UDP_CHECKSUM, 0);
        int c = checksum(f, UDP, udpLength, pseudoHeader(f));
        put16(f, UDP_CHECKSUM, c == 0 ? 0xFFFF : c);
    }

    /** Ethernet, IPv4 and UDP headers in front of {@code srdLength} SRD bytes, as srdnic writes them; checksums not yet set. */
    public static void l2l4(byte[] f, long srcMac, long dstMac, int srcIp, int dstIp, int srcPort, int dstPort, int srdLength) {
        putMac(f, 0, dstMac);
        putMac(f, 6, srcMac);
        put16(f, ETHERTYPE, 0x0800);
        f[IP] = 0x45;
        f[IP + 1] = 0;
        put16(f, IP_TOTAL_LENGTH, 28 + srdLength);
        put32(f, IP + 4, 0x4000);
        f[IP_TTL] = 64;
        f[IP_PROTOCOL] = 17;
        put16(f, IP_CHECKSUM, 0);
        put32(f, IP_SRC, srcIp);
        put32(f, IP_DST, dstIp);
        put16(f, UDP_SRC_PORT, srcPort);
        put16(f, UDP_DST_PORT, dstPort);
        put16(f, UDP_LENGTH, 8 + srdLength);
        put16(f, UDP_CHECKSUM, 0);
    }
}
