package io.srdnic.rtrs.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** RTRS's fields are little-endian (__le16/__le32/__le64) and unaligned inside CM private data. */
final class Wire {
    static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** uuid_t is 16 raw bytes in text order: the most significant long first, big-endian. */
    static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Wire() {
    }

    static int u16(MemorySegment s, long at) {
        return Short.toUnsignedInt(s.get(LE16, at));
    }

    static void u16(MemorySegment s, long at, int v) {
        s.set(LE16, at, (short) v);
    }

    static void zero(MemorySegment s, long at, long length) {
        s.asSlice(at, length).fill((byte) 0);
    }
}
