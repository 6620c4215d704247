package io.srdnic.srd.wire;

import static io.srdnic.ffm.rte_mbuf.BUF_LEN_OFFSET;
import static io.srdnic.ffm.rte_mbuf.NB_SEGS_OFFSET;

import io.srdnic.pmd.Mbuf;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * Test support for the wire codecs: builds well-formed SRD frames with the codecs, copies frames
 * out, and checks and repairs checksums with an Internet checksum of its own over a byte[] (so the
 * codecs' {@link Checksums} is not checked against itself).
 */
final class WireFrames {
    /** A shim path that does not exist: any accidental load of DPDK in these tests fails loudly. */
    static final String NO_SHIM = "/nonexistent/srdnic-wire-test/libsrdnic_shim.so";
    /** All of native memory, for the rte_mbuf fields the flyweight does not let us set. */
    @SuppressWarnings("restricted")
    static final MemorySegment NATIVE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    static final long SRC_MAC = 0x02_00_00_00_00_01L;
    static final long DST_MAC = 0x02_00_00_00_00_02L;
    static final int SRC_IP = 0x0A00_0001;
    static final int DST_IP = 0x0A00_0002;
    static final int PORT = SrdPort.DEFAULT;
    static final int MTU = 4096;

    private WireFrames() {
    }

    static void forbidNativeDpdk() {
        System.setProperty("srdnic.shim.path", NO_SHIM);
    }

    // ---- building frames with the codecs ---------------------------------------------------------

    /** A data or probe packet (type 1..4, 6, 7) with fields derived from {@code seed}; returns the frame length. */
    static int writeData(Mbuf m, int type, int payloadLength, boolean udpChecksum, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        SrdHeader.versionAndType(m, type);
        SrdHeader.flags(m, r.nextInt(2));
        SrdHeader.payloadLength(m, payloadLength);
        SrdHeader.sourceContext(m, r.nextInt());
        SrdHeader.destinationContext(m, r.nextInt());
        SrdHeader.epoch(m, r.nextInt() | 1);
        SrdHeader.psn(m, r.nextInt());
        SrdHeader.sendBase(m, r.nextInt());
        SrdHeader.sourceQpn(m, r.nextInt(SrdParser.MAX_QPN + 1));
        SrdHeader.destinationQpn(m, r.nextInt(SrdParser.MAX_QPN + 1));
        SrdHeader.qkey(m, r.nextInt());
        SrdHeader.immediate(m, type == PacketType.SEND_WITH_IMM ? r.nextInt() : 0);
        SrdHeader.timestamp(m, r.nextLong());
        for (int i = 0; i < payloadLength; i++) {
            m.putByte(SrdHeader.PAYLOAD_OFFSET + i, payloadByte(seed, i));
        }
        int srdLength = SrdHeader.LENGTH + payloadLength;
        Ipv4UdpFrame.write(m, SRC_MAC, DST_MAC, SRC_IP, DST_IP, SrdPort.sourcePort(r.nextInt()), PORT, srdLength, udpChecksum);
        return m.dataLength();
    }

    static byte payloadByte(long seed, int i) {
        return (byte) (seed * 131 + i * 17 + (i >>> 8));
    }

    /** An ACK with {@code drops} valid drop entries and fields derived from {@code seed}; returns the frame length. */
    static int writeAck(Mbuf m, int drops, boolean udpChecksum, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        SrdHeader.versionAndType(m, PacketType.ACK);
        SrdHeader.flags(m, 0);
        SrdAck.dropCount(m, drops);
        SrdAck.sourceContext(m, r.nextInt());
        SrdAck.destinationContext(m, r.nextInt());
        SrdAck.epoch(m, r.nextInt() | 1);
        SrdAck.cumulativePsn(m, r.nextInt());
        SrdAck.echoedEpoch(m, r.nextInt() | 1);
        SrdAck.triggerPsn(m, r.nextInt());
        SrdAck.echoedTimestamp(m, r.nextLong());
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            SrdAck.sackWord(m, w, r.nextLong());
        }
        for (int i = 0; i < drops; i++) {
            SrdAck.drop(m, i, r.nextInt(), 1 + r.nextInt(4));
        }
        Ipv4UdpFrame.write(m, SRC_MAC, DST_MAC, SRC_IP, DST_IP, SrdPort.sourcePort(r.nextInt()), PORT,
            SrdAck.length(drops), udpChecksum);
        return m.dataLength();
    }

    /** One of every accepted kind, chosen by {@code kind} (any int), with fields from {@code seed}. */
    static int writeValid(Mbuf m, int kind, boolean udpChecksum, long seed) {
        SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        return switch (Math.floorMod(kind, 7)) {
            case 0 -> writeData(m, PacketType.SEND, r.nextInt(4) == 0 ? 0 : r.nextInt(1, 300), udpChecksum, seed);
            case 1 -> writeData(m, PacketType.SEND_WITH_IMM, r.nextInt(64), udpChecksum, seed);
            case 2 -> writeData(m, PacketType.SEND, r.nextInt(MTU + 1), udpChecksum, seed);
            case 3 -> writeAck(m, r.nextInt(SrdAck.MAX_DROPS + 1), udpChecksum, seed);
            case 4 -> writeData(m, PacketType.PROBE, 0, udpChecksum, seed);
            case 5 -> writeData(m, PacketType.PROBE_REPLY, 0, udpChecksum, seed);
            default -> writeAck(m, 0, udpChecksum, seed);
        };
    }

    // ---- raw access --------------------------------------------------------------------------------

    static byte[] bytes(Mbuf m) {
        return bytes(m, m.dataLength());
    }

    static byte[] bytes(Mbuf m, int length) {
        byte[] bytes = new byte[length];
        m.copyTo(0, MemorySegment.ofArray(bytes), 0, length);
        return bytes;
    }

    /** Replaces the frame with {@code bytes} (length = frame length). */
    static void put(Mbuf m, byte[] bytes, int length) {
        m.frameLength(length);
        m.copyFrom(MemorySegment.ofArray(bytes), 0, 0, length);
    }

    static void segments(Mbuf m, int n) {
        NATIVE.set(ValueLayout.JAVA_SHORT_UNALIGNED, m.address() + NB_SEGS_OFFSET, (short) n);
    }

    /** Sets the raw buf_len so that the flyweight's data room ends {@code room} bytes after the data start. */
    static void dataRoom(Mbuf m, int room) {
        NATIVE.set(ValueLayout.JAVA_SHORT_UNALIGNED, m.address() + BUF_LEN_OFFSET, (short) (m.dataOffset() + room));
        m.wrap(m.address()); // the flyweight reads the data room at wrap
    }

    static int u16(byte[] b, int at) {
        return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
    }

    static int s32(byte[] b, int at) {
        return (u16(b, at) << 16) | u16(b, at + 2);
    }

    // ---- an independent Internet checksum ---------------------------------------------------------

    /** RFC 1071 over {@code length} bytes of {@code b} from {@code offset}, plus {@code initial}: folded, inverted. */
    static int checksum(byte[] b, int offset, int length, long initial) {
        long sum = initial;
        for (int i = 0; i < length; i += 2) {
            int hi = b[offset + i] & 0xFF;
            int lo = i + 1 < length ? b[offset + i + 1] & 0xFF : 0;
            sum += (hi << 8) | lo;
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        return (int) (~sum & 0xFFFF);
    }

    /** The UDP pseudo-header sum of an IPv4/UDP frame (source, destination, protocol, UDP length). */
    static long pseudoHeader(byte[] f) {
        return u16(f, 26) + u16(f, 28) + u16(f, 30) + u16(f, 32) + 17 + u16(f, 38);
    }

    /** True when the IPv4 header checksum of the frame verifies. */
    static boolean ipChecksumValid(byte[] f) {
        return checksum(f, 14, 20, 0) == 0;
    }

    /** True when the UDP checksum verifies (a zero field counts as "none", so valid). */
    static boolean udpChecksumValid(byte[] f) {
        return u16(f, 40) == 0 || checksum(f, 34, u16(f, 38), pseudoHeader(f)) == 0;
    }

    /**
     * Recomputes the IPv4 header checksum, and the UDP checksum unless it is 0 ("none"), after a test
     * edited the frame, so that the edit is the frame's only defect. Uses the lengths in the headers,
     * bounded by the frame.
     */
    static void refreshChecksums(Mbuf m) {
        byte[] f = bytes(m);
        if (f.length < 42) {
            return;
        }
        f[24] = 0;
        f[25] = 0;
        int ip = checksum(f, 14, 20, 0);
        m.putShortBE(24, (short) ip);
        f[24] = (byte) (ip >>> 8);
        f[25] = (byte) ip;
        if (u16(f, 40) != 0) {
            int udpLength = Math.min(u16(f, 38), f.length - 34);
            f[40] = 0;
            f[41] = 0;
            int udp = checksum(f, 34, udpLength, pseudoHeader(f));
            m.putShortBE(40, (short) (udp == 0 ? 0xFFFF : udp));
        }
    }
}
