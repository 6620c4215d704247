package io.srdnic.cli.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The bytes an RDMA run moves: 8-byte words, each a SplitMix64 hash of the run's seed and its own
 * position, little-endian, so a byte that lands in the wrong place, a stale one and a lost one all
 * differ from what is expected there. Both sides compute it from the run id, so it never travels
 * on the side channel.
 */
final class Pattern {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Pattern() {
    }

    /** The word at byte offset {@code 8 * index}. */
    static long word(long seed, long index) {
        long z = seed * 0x9E37_79B9_7F4A_7C15L + (index + 1) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    private static byte tailByte(long seed, long offset) {
        return (byte) (word(seed, offset >>> 3) >>> ((offset & 7) << 3));
    }

    /** Writes the first {@code length} bytes of the pattern at the start of {@code s}. */
    static void fill(MemorySegment s, long length, long seed) {
        long words = length >>> 3;
        for (long w = 0; w < words; w++) {
            s.set(WORD, w << 3, word(seed, w));
        }
        for (long i = words << 3; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, tailByte(seed, i));
        }
    }

    /** The offset of the first of the first {@code length} bytes of {@code s} that is not the pattern's, or -1. */
    static long firstMismatch(MemorySegment s, long length, long seed) {
        long words = length >>> 3;
        for (long w = 0; w < words; w++) {
            long diff = s.get(WORD, w << 3) ^ word(seed, w);
            if (diff != 0) {
                return (w << 3) + (Long.numberOfTrailingZeros(diff) >>> 3);
            }
        }
        for (long i = words << 3; i < length; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != tailByte(seed, i)) {
                return i;
            }
        }
        return -1;
    }
}
