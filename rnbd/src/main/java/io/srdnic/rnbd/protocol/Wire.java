package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** RNBD's little-endian fields and the 4-byte header every message starts with. */
public final class Wire {
    static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final int HEADER = 4;

    private Wire() {
    }

    /** The message type at {@code at}, or -1 when fewer than {@link #HEADER} bytes came. */
    public static int type(MemorySegment s, long at, int length) {
        return length < HEADER ? -1 : u16(s, at);
    }

    static int u16(MemorySegment s, long at) {
        return Short.toUnsignedInt(s.get(LE16, at));
    }

    static void u16(MemorySegment s, long at, int v) {
        s.set(LE16, at, (short) v);
    }

    static int u8(MemorySegment s, long at) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, at));
    }

    static void u8(MemorySegment s, long at, int v) {
        s.set(ValueLayout.JAVA_BYTE, at, (byte) v);
    }

    /** Zeroes {@code length} bytes and writes the header: type, zero padding. */
    static void header(MemorySegment s, long at, int type, int length) {
        s.asSlice(at, length).fill((byte) 0);
        u16(s, at, type);
    }
}
