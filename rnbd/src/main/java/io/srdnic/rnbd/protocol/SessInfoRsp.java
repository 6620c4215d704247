package io.srdnic.rnbd.protocol;

import java.lang.foreign.MemorySegment;

/** RNBD_MSG_SESS_INFO_RSP (struct rnbd_msg_sess_info_rsp): the server's version. {@code 0 hdr   4 u8 ver   5..35 reserved}. */
public final class SessInfoRsp {
    public static final int LENGTH = VersionMessage.LENGTH;

    private SessInfoRsp() {
    }

    public static void write(MemorySegment s, long at, int version) {
        VersionMessage.write(s, at, Rnbd.MSG_SESS_INFO_RSP, version);
    }

    public static boolean check(MemorySegment s, long at, int length) {
        return VersionMessage.check(s, at, length, Rnbd.MSG_SESS_INFO_RSP);
    }

    public static int version(MemorySegment s, long at) {
        return VersionMessage.version(s, at);
    }
}
