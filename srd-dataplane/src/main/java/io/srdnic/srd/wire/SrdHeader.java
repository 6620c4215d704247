package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;

import io.srdnic.pmd.Mbuf;

/**
 * The SRD header of data and probe packets (48 bytes, big-endian), after the UDP header.
 * <pre>
 *   0       1       2               4                               8
 *   +-------+-------+---------------+-------------------------------+
 *   |ver|typ| flags | payload length| source context id             |
 *   +-------+-------+---------------+-------------------------------+
 *   8                               12                              16
 *   | destination context id (0: not yet known)| sender epoch       |
 *   +-------------------------------+-------------------------------+
 *  16                              20                              24
 *   | PSN                           | send base PSN (oldest unacked)|
 *   +-------------------------------+-------------------------------+
 *  24                              28                              32
 *   | source QPN                    | destination QPN               |
 *   +-------------------------------+-------------------------------+
 *  32                              36                              40
 *   | Q_Key                         | immediate data                |
 *   +-------------------------------+-------------------------------+
 *  40                                                              48
 *   | timestamp (sender's clock, ns; echoed by the ACK)             |
 *   +---------------------------------------------------------------+
 * </pre>
 * Offsets below are from the start of the SRD header; the static accessors take the frame.
 */
public final class SrdHeader {
    public static final int VERSION = 1;
    public static final int LENGTH = 48;

    public static final int VERSION_TYPE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int PAYLOAD_LENGTH_OFFSET = 2;
    public static final int SOURCE_CONTEXT_OFFSET = 4;
    public static final int DESTINATION_CONTEXT_OFFSET = 8;
    public static final int EPOCH_OFFSET = 12;
    public static final int PSN_OFFSET = 16;
    public static final int SEND_BASE_OFFSET = 20;
    public static final int SOURCE_QPN_OFFSET = 24;
    public static final int DESTINATION_QPN_OFFSET = 28;
    public static final int QKEY_OFFSET = 32;
    public static final int IMMEDIATE_OFFSET = 36;
    public static final int TIMESTAMP_OFFSET = 40;

    /** Set on a retransmission (for captures and counters; the responder does not need it). */
    public static final int FLAG_RETRANSMISSION = 1;
    /**
     * A UD datagram riding the same wire format: no context, PSN or ACK; delivered once if a UD QP
     * can take it, silently dropped (and counted) otherwise.
     */
    public static final int FLAG_UNRELIABLE = 2;
    /**
     * RC: the packet belongs to the connection of its two QPs, not to an SRD context. Its PSN is
     * the sending QP's; the context ids are 0; the Q_Key field carries the message's receive
     * sequence number (how many receive-consuming messages the QP sent before it). On an ACK: the
     * context ids are the responder's and the requester's QPN.
     */
    public static final int FLAG_RC = 4;
    /** RC: the first packet of its message (FIRST, or ONLY with {@link #FLAG_LAST}). */
    public static final int FLAG_FIRST = 8;
    /** RC: the last packet of its message (LAST, or ONLY with {@link #FLAG_FIRST}). */
    public static final int FLAG_LAST = 16;
    /**
     * RC ACK: the packet at the cumulative PSN is held at the responder too (a READ or atomic
     * waiting for an answer slot, a SEND whose SRQ receive went to another QP): the requester must
     * not resend it; it runs once the responder can.
     */
    public static final int FLAG_HELD = 32;
    /**
     * SRC: a request packet (SEND, WRITE, READ, atomic) of an SRC QP. Every packet of the message
     * carries, in the destination context id field (0 in an RC packet otherwise), the number of the
     * responder's SRQ the message is for ({@link #srqNumber}); the rest is RC's, exactly.
     */
    public static final int FLAG_SRC = 64;
    /**
     * ACK: the responder received a packet again since its last ACK, a copy of one it already had;
     * {@link SrdAck#duplicatePsn} names it (a DSACK: the requester learns a retransmission was spurious).
     */
    public static final int FLAG_DUPLICATE = 128;

    /** Where the payload starts in the frame. */
    public static final int PAYLOAD_OFFSET = SRD_OFFSET + LENGTH;

    private SrdHeader() {
    }

    public static int version(Mbuf m) {
        return (m.getByte(SRD_OFFSET + VERSION_TYPE_OFFSET) >>> 4) & 0xF;
    }

    public static int type(Mbuf m) {
        return m.getByte(SRD_OFFSET + VERSION_TYPE_OFFSET) & 0xF;
    }

    public static void versionAndType(Mbuf m, int type) {
        m.putByte(SRD_OFFSET + VERSION_TYPE_OFFSET, (byte) ((VERSION << 4) | (type & 0xF)));
    }

    public static int flags(Mbuf m) {
        return m.getByte(SRD_OFFSET + FLAGS_OFFSET) & 0xFF;
    }

    public static void flags(Mbuf m, int flags) {
        m.putByte(SRD_OFFSET + FLAGS_OFFSET, (byte) flags);
    }

    public static int payloadLength(Mbuf m) {
        return Short.toUnsignedInt(m.getShortBE(SRD_OFFSET + PAYLOAD_LENGTH_OFFSET));
    }

    public static void payloadLength(Mbuf m, int length) {
        m.putShortBE(SRD_OFFSET + PAYLOAD_LENGTH_OFFSET, (short) length);
    }

    public static int sourceContext(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + SOURCE_CONTEXT_OFFSET);
    }

    public static void sourceContext(Mbuf m, int id) {
        m.putIntBE(SRD_OFFSET + SOURCE_CONTEXT_OFFSET, id);
    }

    public static int destinationContext(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + DESTINATION_CONTEXT_OFFSET);
    }

    public static void destinationContext(Mbuf m, int id) {
        m.putIntBE(SRD_OFFSET + DESTINATION_CONTEXT_OFFSET, id);
    }

    /** SRC request packets ({@link #FLAG_SRC}): the remote SRQ number, 24 bits, in the destination context id field. */
    public static int srqNumber(Mbuf m) {
        return destinationContext(m);
    }

    public static int epoch(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + EPOCH_OFFSET);
    }

    public static void epoch(Mbuf m, int epoch) {
        m.putIntBE(SRD_OFFSET + EPOCH_OFFSET, epoch);
    }

    public static int psn(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + PSN_OFFSET);
    }

    public static void psn(Mbuf m, int psn) {
        m.putIntBE(SRD_OFFSET + PSN_OFFSET, psn);
    }

    public static int sendBase(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + SEND_BASE_OFFSET);
    }

    public static void sendBase(Mbuf m, int psn) {
        m.putIntBE(SRD_OFFSET + SEND_BASE_OFFSET, psn);
    }

    public static int sourceQpn(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + SOURCE_QPN_OFFSET);
    }

    public static void sourceQpn(Mbuf m, int qpn) {
        m.putIntBE(SRD_OFFSET + SOURCE_QPN_OFFSET, qpn);
    }

    public static int destinationQpn(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + DESTINATION_QPN_OFFSET);
    }

    public static void destinationQpn(Mbuf m, int qpn) {
        m.putIntBE(SRD_OFFSET + DESTINATION_QPN_OFFSET, qpn);
    }

    public static int qkey(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + QKEY_OFFSET);
    }

    public static void qkey(Mbuf m, int qkey) {
        m.putIntBE(SRD_OFFSET + QKEY_OFFSET, qkey);
    }

    /**
     * RC and SRC: the message sequence number, the requester's count of the messages that consume a
     * receive (the responder checks it against its own count). It travels in the field SRD and UD
     * read as the Q_Key, which RC has no use for.
     */
    public static int msn(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + QKEY_OFFSET);
    }

    public static int immediate(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + IMMEDIATE_OFFSET);
    }

    public static void immediate(Mbuf m, int imm) {
        m.putIntBE(SRD_OFFSET + IMMEDIATE_OFFSET, imm);
    }

    public static long timestamp(Mbuf m) {
        return m.getLongBE(SRD_OFFSET + TIMESTAMP_OFFSET);
    }

    public static void timestamp(Mbuf m, long nanos) {
        m.putLongBE(SRD_OFFSET + TIMESTAMP_OFFSET, nanos);
    }

    /**
     * Writes the whole header: every field, so nothing of an mbuf's previous frame survives (the
     * reserved bytes above the 24-bit QPNs included). Data, datagram and probe packets alike.
     * {@code qkeyOrMsn} is the Q_Key on SRD and UD, the message sequence number on RC and SRC ({@link #msn}).
     * <p>
     * Six 8-byte stores, one per pair of fields, and the header's ones'-complement sum returned,
     * computed from the same values: the UDP checksum takes it ({@link Ipv4UdpFrame#write(Mbuf, long,
     * long, int, int, int, int, int, boolean, long, int)}) instead of reading the 48 bytes back, a read
     * that the CPU cannot forward from these stores and waits on until they reach the cache.
     * Returns the sum unfolded, in network byte order, as {@link Checksums#sum} returns one.
     */
    public static long write(Mbuf m, int type, int flags, int payloadLength, int sourceContext, int destinationContext, int epoch,
                             int psn, int sendBase, int sourceQpn, int destinationQpn, int qkeyOrMsn, int immediate, long timestamp) {
        long w0 = ((long) ((VERSION << 4) | (type & 0xF)) << 56) | ((long) (flags & 0xFF) << 48) | ((long) (payloadLength & 0xFFFF) << 32)
            | (sourceContext & 0xFFFF_FFFFL);
        long w1 = pair(destinationContext, epoch);
        long w2 = pair(psn, sendBase);
        long w3 = pair(sourceQpn, destinationQpn);
        long w4 = pair(qkeyOrMsn, immediate);
        m.putLongBE(SRD_OFFSET + VERSION_TYPE_OFFSET, w0);
        m.putLongBE(SRD_OFFSET + DESTINATION_CONTEXT_OFFSET, w1);
        m.putLongBE(SRD_OFFSET + PSN_OFFSET, w2);
        m.putLongBE(SRD_OFFSET + SOURCE_QPN_OFFSET, w3);
        m.putLongBE(SRD_OFFSET + QKEY_OFFSET, w4);
        m.putLongBE(SRD_OFFSET + TIMESTAMP_OFFSET, timestamp);
        // 2^16 = 1 modulo 2^16 - 1: a 32-bit half adds as its two 16-bit words do.
        return halves(w0) + halves(w1) + halves(w2) + halves(w3) + halves(w4) + halves(timestamp);
    }

    private static long pair(int high, int low) {
        return ((long) high << 32) | (low & 0xFFFF_FFFFL);
    }

    private static long halves(long w) {
        return (w >>> 32) + (w & 0xFFFF_FFFFL);
    }
}
