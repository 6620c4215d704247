package io.srdnic.cli.adversary;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The payload of one message of the verified stream: whose it is, its sequence number, a pattern
 * derived from both, and a CRC32C over all of it, so the receiver can tell a message of the stream,
 * delivered intact, from anything else (a forged frame the transport should not have delivered).
 * <pre>
 *  0        4          8                  16                          size-4     size
 *  +--------+----------+------------------+---------------------------+----------+
 *  | "SRDA" | stream id| sequence number  | pattern(stream, sequence) | CRC32C   |
 *  +--------+----------+------------------+---------------------------+----------+
 * </pre>
 * The immediate data of the send carries the sequence number's low 32 bits as well.
 */
public final class StreamPayload {
    public static final int MIN_SIZE = 20;
    static final int MAGIC = 0x5352_4441;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Why a received message is not one of the stream's, intact. */
    public enum Defect { LENGTH, MAGIC, STREAM, CHECKSUM, IMMEDIATE, NEVER_SENT }

    private final CRC32C crc = new CRC32C();

    /** Writes message {@code sequence} of {@code stream}, {@code size} bytes at {@code at}. */
    public void write(MemorySegment buffer, long at, int size, int stream, long sequence) {
        buffer.set(INT, at, MAGIC);
        buffer.set(INT, at + 4, stream);
        buffer.set(LONG, at + 8, sequence);
        long x = sequence * 0x9E37_79B9_7F4A_7C15L + stream;
        for (int i = 16; i < size - 4; i++) {
            if (((i - 16) & 7) == 0) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            buffer.set(ValueLayout.JAVA_BYTE, at + i, (byte) (x >>> (8 * ((i - 16) & 7))));
        }
        buffer.set(INT, at + size - 4, checksum(buffer, at, size));
    }

    /**
     * Checks a received message of {@code length} bytes at {@code at} against the stream's size and id
     * and the immediate it came with; null when intact, else the defect. {@code sequence[0]} gets its
     * sequence number when the rest is intact.
     */
    public Defect check(MemorySegment buffer, long at, int length, int size, int stream, int immediate, long[] sequence) {
        if (length != size) {
            return Defect.LENGTH;
        }
        if (buffer.get(INT, at) != MAGIC) {
            return Defect.MAGIC;
        }
        if (buffer.get(INT, at + 4) != stream) {
            return Defect.STREAM;
        }
        if (buffer.get(INT, at + size - 4) != checksum(buffer, at, size)) {
            return Defect.CHECKSUM;
        }
        long seq = buffer.get(LONG, at + 8);
        if ((int) seq != immediate) {
            return Defect.IMMEDIATE;
        }
        if (seq < 0) {
            return Defect.NEVER_SENT;
        }
        sequence[0] = seq;
        return null;
    }

    private int checksum(MemorySegment buffer, long at, int size) {
        crc.reset();
        crc.update(buffer.asSlice(at, size - 4).asByteBuffer());
        return (int) crc.getValue();
    }
}
