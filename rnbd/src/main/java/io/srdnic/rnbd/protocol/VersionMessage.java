package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;

/** SESS_INFO and SESS_INFO_RSP share one layout, {@code 0 hdr   4 u8 ver   5..35 reserved}; only the type differs. */
final class VersionMessage {
    static final int LENGTH = 36;

    private VersionMessage() {
    }

    static void write(MemorySegment s, long at, int type, int version) {
        Wire.header(s, at, type, LENGTH);
        Wire.u8(s, at + 4, version);
    }

    static boolean check(MemorySegment s, long at, int length, int type) {
        return length >= LENGTH && Wire.u16(s, at) == type;
    }

    static int version(MemorySegment s, long at) {
        return Wire.u8(s, at + 4);
    }
}
