package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;

/**
 * RNBD_MSG_SESS_INFO (struct rnbd_msg_sess_info): the client's first message on a session, its
 * protocol version. {@code 0 hdr   4 u8 ver   5..35 reserved}. Sent as an RTRS read whose data
 * is the {@link SessInfoRsp}.
 */
public final class SessInfo {
    public static final int LENGTH = VersionMessage.LENGTH;

    private SessInfo() {
    }

    public static void write(MemorySegment s, long at, int version) {
        VersionMessage.write(s, at, Rnbd.MSG_SESS_INFO, version);
    }

    /** Whether {@code length} bytes at {@code at} are a SESS_INFO. */
    public static boolean check(MemorySegment s, long at, int length) {
        return VersionMessage.check(s, at, length, Rnbd.MSG_SESS_INFO);
    }

    public static int version(MemorySegment s, long at) {
        return VersionMessage.version(s, at);
    }
}
