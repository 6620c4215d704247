package io.srdnic.pmd.pcap;

import io.srdnic.pmd.Mbuf;
import java.io.File;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test support: reads pcap files back, builds Ethernet/IPv4/UDP frames with a checkable payload,
 * and runs tshark.
 */
final class PcapFiles {
    /** A shim path that does not exist: any accidental load of DPDK in these tests fails loudly. */
    static final String NO_SHIM = "/nonexistent/srdnic-pcap-test/libsrdnic_shim.so";
    /** All of native memory, for the mbuf fields the flyweight does not let us set (nb_segs, next). */
    @SuppressWarnings("restricted")
    static final MemorySegment NATIVE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private PcapFiles() {
    }

    static void forbidNativeDpdk() {
        System.setProperty("srdnic.shim.path", NO_SHIM);
    }

    /** One record of a pcap file. */
    record Record(long seconds, long nanos, int includedLength, int originalLength, byte[] data) {
        long timestampNanos() {
            return seconds * 1_000_000_000L + nanos;
        }
    }

    /** The file header fields and the records of a little-endian nanosecond pcap file. */
    record Capture(int magic, int versionMajor, int versionMinor, int zone, int sigfigs, int snaplen, int linkType,
                   List<Record> records) {
    }

    static Capture read(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        int magic = b.getInt();
        int major = Short.toUnsignedInt(b.getShort());
        int minor = Short.toUnsignedInt(b.getShort());
        int zone = b.getInt();
        int sigfigs = b.getInt();
        int snaplen = b.getInt();
        int linkType = b.getInt();
        List<Record> records = new ArrayList<>();
        while (b.hasRemaining()) {
            long seconds = Integer.toUnsignedLong(b.getInt());
            long nanos = Integer.toUnsignedLong(b.getInt());
            int included = b.getInt();
            int original = b.getInt();
            byte[] data = new byte[included];
            b.get(data);
            records.add(new Record(seconds, nanos, included, original, data));
        }
        return new Capture(magic, major, minor, zone, sigfigs, snaplen, linkType, records);
    }

    static byte patternByte(int sequence, int offset) {
        return (byte) (sequence * 31 + offset * 7 + 1);
    }

    /**
     * Writes a {@code length}-byte Ethernet/IPv4/UDP frame (length at least 46) whose UDP payload
     * starts with {@code sequence} and continues with {@link #patternByte}.
     */
    static void writeUdp(Mbuf m, long dstMac, long srcMac, int srcPort, int dstPort, int length, int sequence) {
        m.frameLength(length);
        m.putShortBE(0, (short) (dstMac >>> 32)).putIntBE(2, (int) dstMac);
        m.putShortBE(6, (short) (srcMac >>> 32)).putIntBE(8, (int) srcMac);
        m.putShortBE(12, (short) 0x0800);
        m.putIntBE(14, 0x4500_0000 | (length - 14));
        m.putIntBE(18, 0x0000_4000);
        m.putIntBE(22, (64 << 24) | (17 << 16));
        m.putIntBE(26, 0x0A00_0000 | (int) (srcMac & 0xFF));
        m.putIntBE(30, 0x0A00_0000 | (int) (dstMac & 0xFF));
        long sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += Short.toUnsignedInt(m.getShortBE(i));
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        m.putShortBE(24, (short) ~sum);
        m.putShortBE(34, (short) srcPort).putShortBE(36, (short) dstPort);
        m.putShortBE(38, (short) (length - 34)).putShortBE(40, (short) 0);
        m.putIntBE(42, sequence);
        for (int i = 46; i < length; i++) {
            m.putByte(i, patternByte(sequence, i));
        }
    }

    /** Fills {@code length} bytes of one segment with {@link #patternByte} numbered from {@code firstOffset}. */
    static void fillSegment(Mbuf m, int length, int sequence, int firstOffset) {
        m.frameLength(length);
        for (int i = 0; i < length; i++) {
            m.putByte(i, patternByte(sequence, firstOffset + i));
        }
    }

    static byte[] bytes(Mbuf m) {
        byte[] bytes = new byte[m.dataLength()];
        m.copyTo(0, MemorySegment.ofArray(bytes), 0, bytes.length);
        return bytes;
    }

    /** The tshark executable on the PATH, or null when there is none. */
    static Path tshark() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "tshark");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    static final String NO_TSHARK = "tshark is not on the PATH: install it (Debian: apt-get install tshark; "
        + "scripts' set-up installs it in CI) to check captures with Wireshark's own reader";

    /** Runs tshark with {@code args}; returns its standard output lines; fails on a non-zero exit. */
    static List<String> runTshark(Path tshark, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(tshark.toString());
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile("tshark", ".err");
        try {
            Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
            process.getOutputStream().close();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("tshark did not finish in 60 s: " + command);
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("tshark exited with " + process.exitValue() + ": " + command + "\n"
                    + Files.readString(stderr));
            }
            String text = new String(out, StandardCharsets.UTF_8);
            return text.isEmpty() ? List.of() : List.of(text.split("\n"));
        } finally {
            Files.deleteIfExists(stderr);
        }
    }
}
