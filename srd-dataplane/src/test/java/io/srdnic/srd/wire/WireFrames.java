package io.srdnic.srd.wire;


import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.testing.FrameBytes;
import io.srdnic.srd.testing.FrameForger;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Test support for the wire codecs: builds well-formed SRD frames with the codecs, copies frames
 * out, and checks and repairs checksums with an Internet checksum of its own over a byte[] (so the
 * codecs' {@link Checksums} is not checked against itself): {@link FrameBytes}'s, shared with the fuzz targets.
 */
final class WireFrames extends FrameBytes {
    /** A shim path that does not exist: any accidental load of DPDK in these tests fails loudly. */
    static final String NO_SHIM = "/nonexistent/srdnic-wire-test/libsrdnic_shim.so";
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
        FrameForger f = forger(udpChecksum);
        f.type = type;
        f.flags = r.nextInt(2);
        f.srcContext = r.nextInt();
        f.dstContext = r.nextInt();
        f.epoch = r.nextInt() | 1;
        f.psn = r.nextInt();
        f.sendBase = r.nextInt();
        f.srcQpn = r.nextInt(SrdParser.MAX_QPN + 1);
        f.dstQpn = r.nextInt(SrdParser.MAX_QPN + 1);
        f.qkey = r.nextInt();
        f.immediate = type == PacketType.SEND_WITH_IMM ? r.nextInt() : 0;
        f.timestamp = r.nextLong();
        f.srcPort = SrdPort.sourcePort(r.nextInt());
        return f.writeData(m, payloadLength, i -> payloadByte(seed, i));
    }

    static byte payloadByte(long seed, int i) {
        return (byte) (seed * 131 + i * 17 + (i >>> 8));
    }

    /** An ACK with {@code drops} valid drop entries and fields derived from {@code seed}; returns the frame length. */
    static int writeAck(Mbuf m, int drops, boolean udpChecksum, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        FrameForger f = forger(udpChecksum);
        f.flags = 0;
        f.srcContext = r.nextInt();
        f.dstContext = r.nextInt();
        f.epoch = r.nextInt() | 1;
        f.cumulativePsn = r.nextInt();
        f.echoedEpoch = r.nextInt() | 1;
        f.triggerPsn = r.nextInt();
        f.echoedTimestamp = r.nextLong();
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            f.sack[w] = r.nextLong();
        }
        int[] entries = new int[2 * drops];
        for (int i = 0; i < drops; i++) {
            entries[2 * i] = r.nextInt();
            entries[2 * i + 1] = 1 + r.nextInt(4);
        }
        f.srcPort = SrdPort.sourcePort(r.nextInt());
        return f.writeAck(m, entries);
    }

    private static FrameForger forger(boolean udpChecksum) {
        FrameForger f = new FrameForger().addresses(SRC_MAC, SRC_IP, DST_MAC, DST_IP);
        f.dstPort = PORT;
        f.udpChecksum = udpChecksum;
        return f;
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

    /** Replaces the frame with {@code bytes} (length = frame length). */
    static void put(Mbuf m, byte[] bytes, int length) {
        m.frameLength(length);
        m.copyFrom(MemorySegment.ofArray(bytes), 0, 0, length);
    }

    /** True when the UDP checksum verifies (a zero field counts as "none", so valid) over the whole frame. */
    static boolean udpChecksumValid(byte[] f) {
        return udpChecksumValid(f, f.length);
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
