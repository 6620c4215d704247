package io.srdnic.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the frames of a classic pcap file as {@code PcapWriter} writes it (little-endian,
 * nanosecond magic 0xa1b23c4d, Ethernet), independently of the writer.
 */
final class PcapRecords {
    private static final int MAGIC_NANOSECONDS = 0xA1B2_3C4D;
    private static final int LINKTYPE_ETHERNET = 1;

    private PcapRecords() {
    }

    static List<byte[]> frames(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt() != MAGIC_NANOSECONDS) {
            throw new AssertionError(file + " is not a little-endian nanosecond pcap");
        }
        b.position(20);
        if (b.getInt() != LINKTYPE_ETHERNET) {
            throw new AssertionError(file + " is not LINKTYPE_ETHERNET");
        }
        List<byte[]> frames = new ArrayList<>();
        while (b.remaining() >= 16) {
            b.getInt();                 // seconds
            b.getInt();                 // nanoseconds
            int captured = b.getInt();
            int original = b.getInt();
            if (captured != original) {
                throw new AssertionError("frame " + (frames.size() + 1) + " was cut to " + captured + " of " + original + " bytes");
            }
            byte[] frame = Arrays.copyOfRange(b.array(), b.position(), b.position() + captured);
            b.position(b.position() + captured);
            frames.add(frame);
        }
        if (b.hasRemaining()) {
            throw new AssertionError(file + " ends inside a record header");
        }
        return frames;
    }
}
