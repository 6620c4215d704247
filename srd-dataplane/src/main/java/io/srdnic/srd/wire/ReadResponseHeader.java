package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;

import io.srdnic.pmd.Mbuf;

/**
 * The extended header (16 bytes, big-endian) of a READ_RESPONSE packet, after the SRD header; the
 * SRD payload length counts it. A read's responses are ordinary reliable packets of the
 * responder's own PSN space, so they may arrive in any order: each says where its data goes.
 * <pre>
 *   0                               4                               8
 *   +-------------------------------+-------------------------------+
 *   | read token (the requester's,  | offset of this data in the    |
 *   |  echoed from the request)     |  read                         |
 *   +-------------------------------+-------------------------------+
 *   8                               12      13                      16
 *   | the read's whole length       | status| 0                     |
 *   +-------------------------------+-------+-----------------------+
 * </pre>
 * Status 0 is data; otherwise a {@link DropReason} (REMOTE_ACCESS: the region was deregistered while
 * the read was answered) that fails the read, with no data.
 */
public final class ReadResponseHeader {
    public static final int LENGTH = 16;
    public static final int TOKEN_OFFSET = SrdHeader.LENGTH;
    public static final int READ_OFFSET_OFFSET = SrdHeader.LENGTH + 4;
    public static final int READ_LENGTH_OFFSET = SrdHeader.LENGTH + 8;
    public static final int STATUS_OFFSET = SrdHeader.LENGTH + 12;
    /** Where the data of a READ_RESPONSE starts in the frame. */
    public static final int DATA_OFFSET = SrdHeader.PAYLOAD_OFFSET + LENGTH;

    private ReadResponseHeader() {
    }

    public static int token(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + TOKEN_OFFSET);
    }

    public static int readOffset(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + READ_OFFSET_OFFSET);
    }

    public static int readLength(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + READ_LENGTH_OFFSET);
    }

    public static int status(Mbuf m) {
        return m.getByte(SRD_OFFSET + STATUS_OFFSET) & 0xFF;
    }

    public static void write(Mbuf m, int token, int readOffset, int readLength, int status) {
        m.putIntBE(SRD_OFFSET + TOKEN_OFFSET, token);
        m.putIntBE(SRD_OFFSET + READ_OFFSET_OFFSET, readOffset);
        m.putIntBE(SRD_OFFSET + READ_LENGTH_OFFSET, readLength);
        m.putIntBE(SRD_OFFSET + STATUS_OFFSET, status << 24);
    }
}
