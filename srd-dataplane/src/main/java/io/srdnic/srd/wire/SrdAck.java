package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;

import io.srdnic.pmd.Mbuf;

/**
 * The SRD ACK (72 bytes plus 8 per drop entry, big-endian), after the UDP header.
 * <pre>
 *   0       1       2               4                               8
 *   +-------+-------+---------------+-------------------------------+
 *   |ver|typ| flags | drop count    | source context id (responder) |
 *   +-------+-------+---------------+-------------------------------+
 *   8                               12                              16
 *   | destination context id        | responder epoch               |
 *   +-------------------------------+-------------------------------+
 *  16                              20                              24
 *   | cumulative PSN: all below     | echoed sender epoch           |
 *   |  are received                 |                               |
 *   +-------------------------------+-------------------------------+
 *  24                              28                              32
 *   | trigger PSN (acked packet)    | duplicate PSN (0 unless DUP)  |
 *   +-------------------------------+-------------------------------+
 *  32                                                              40
 *   | echoed timestamp of the trigger packet                        |
 *   +---------------------------------------------------------------+
 *  40                                                              72
 *   | selective-ack bitmap, 4 x 64 bits: bit i of word w set means  |
 *   |  PSN cumulative + 1 + 64w + i was received                    |
 *   +---------------------------------------------------------------+
 *  72 drop entries, each 8 bytes: PSN (32) | reason (8) | detail (8) | 0 (16)
 *     detail: on an RC RNR NAK, the responder's RNR timer code (IBTA's five-bit encoding); else 0
 * </pre>
 * With {@link SrdHeader#FLAG_DUPLICATE} set, the responder received the packet at the duplicate
 * PSN again since its last ACK (the latest such, if several): TCP's DSACK, the report that tells a
 * requester its retransmission was spurious. Without it the field is 0 and means nothing.
 */
public final class SrdAck {
    public static final int LENGTH = 72;
    public static final int SACK_WORDS = 4;
    public static final int SACK_BITS = SACK_WORDS * 64;
    public static final int DROP_ENTRY_LENGTH = 8;
    /** Drop entries one ACK may carry. */
    public static final int MAX_DROPS = 16;

    public static final int DROP_COUNT_OFFSET = 2;
    // The first 16 bytes are the SRD header's common prefix: the same fields at the same offsets.
    public static final int SOURCE_CONTEXT_OFFSET = SrdHeader.SOURCE_CONTEXT_OFFSET;
    public static final int DESTINATION_CONTEXT_OFFSET = SrdHeader.DESTINATION_CONTEXT_OFFSET;
    public static final int EPOCH_OFFSET = SrdHeader.EPOCH_OFFSET;
    public static final int CUMULATIVE_PSN_OFFSET = 16;
    public static final int ECHOED_EPOCH_OFFSET = 20;
    public static final int TRIGGER_PSN_OFFSET = 24;
    public static final int DUPLICATE_PSN_OFFSET = 28;
    public static final int ECHOED_TIMESTAMP_OFFSET = 32;
    public static final int SACK_OFFSET = 40;
    public static final int DROPS_OFFSET = 72;

    private SrdAck() {
    }

    /** Length of an ACK with {@code drops} entries, SRD header only. */
    public static int length(int drops) {
        return LENGTH + drops * DROP_ENTRY_LENGTH;
    }

    public static int dropCount(Mbuf m) {
        return Short.toUnsignedInt(m.getShortBE(SRD_OFFSET + DROP_COUNT_OFFSET));
    }

    public static void dropCount(Mbuf m, int n) {
        m.putShortBE(SRD_OFFSET + DROP_COUNT_OFFSET, (short) n);
    }

    public static int sourceContext(Mbuf m) {
        return SrdHeader.sourceContext(m);
    }

    public static void sourceContext(Mbuf m, int id) {
        SrdHeader.sourceContext(m, id);
    }

    public static int destinationContext(Mbuf m) {
        return SrdHeader.destinationContext(m);
    }

    public static void destinationContext(Mbuf m, int id) {
        SrdHeader.destinationContext(m, id);
    }

    public static int epoch(Mbuf m) {
        return SrdHeader.epoch(m);
    }

    public static void epoch(Mbuf m, int epoch) {
        SrdHeader.epoch(m, epoch);
    }

    public static int cumulativePsn(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + CUMULATIVE_PSN_OFFSET);
    }

    public static void cumulativePsn(Mbuf m, int psn) {
        m.putIntBE(SRD_OFFSET + CUMULATIVE_PSN_OFFSET, psn);
    }

    public static int echoedEpoch(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + ECHOED_EPOCH_OFFSET);
    }

    public static void echoedEpoch(Mbuf m, int epoch) {
        m.putIntBE(SRD_OFFSET + ECHOED_EPOCH_OFFSET, epoch);
    }

    public static int triggerPsn(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + TRIGGER_PSN_OFFSET);
    }

    public static void triggerPsn(Mbuf m, int psn) {
        m.putIntBE(SRD_OFFSET + TRIGGER_PSN_OFFSET, psn);
        m.putIntBE(SRD_OFFSET + TRIGGER_PSN_OFFSET + 4, 0);
    }

    /** The PSN the responder received again ({@link SrdHeader#FLAG_DUPLICATE}); meaningless without the flag. */
    public static int duplicatePsn(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + DUPLICATE_PSN_OFFSET);
    }

    /** Reports PSN {@code psn} received again: sets {@link SrdHeader#FLAG_DUPLICATE} and the duplicate PSN (after {@link #triggerPsn}). */
    public static void duplicate(Mbuf m, int psn) {
        m.putIntBE(SRD_OFFSET + DUPLICATE_PSN_OFFSET, psn);
        SrdHeader.flags(m, SrdHeader.flags(m) | SrdHeader.FLAG_DUPLICATE);
    }

    /** Whether the ACK reports a duplicate ({@link SrdHeader#FLAG_DUPLICATE}). */
    public static boolean hasDuplicate(Mbuf m) {
        return (SrdHeader.flags(m) & SrdHeader.FLAG_DUPLICATE) != 0;
    }

    public static long echoedTimestamp(Mbuf m) {
        return m.getLongBE(SRD_OFFSET + ECHOED_TIMESTAMP_OFFSET);
    }

    public static void echoedTimestamp(Mbuf m, long nanos) {
        m.putLongBE(SRD_OFFSET + ECHOED_TIMESTAMP_OFFSET, nanos);
    }

    public static long sackWord(Mbuf m, int word) {
        return m.getLongBE(SRD_OFFSET + SACK_OFFSET + word * 8);
    }

    public static void sackWord(Mbuf m, int word, long bits) {
        m.putLongBE(SRD_OFFSET + SACK_OFFSET + word * 8, bits);
    }

    public static int dropPsn(Mbuf m, int index) {
        return m.getIntBE(SRD_OFFSET + DROPS_OFFSET + index * DROP_ENTRY_LENGTH);
    }

    public static int dropReason(Mbuf m, int index) {
        return m.getByte(SRD_OFFSET + DROPS_OFFSET + index * DROP_ENTRY_LENGTH + 4) & 0xFF;
    }

    public static int dropDetail(Mbuf m, int index) {
        return m.getByte(SRD_OFFSET + DROPS_OFFSET + index * DROP_ENTRY_LENGTH + 5) & 0xFF;
    }

    public static void drop(Mbuf m, int index, int psn, int reason) {
        drop(m, index, psn, reason, 0);
    }

    public static void drop(Mbuf m, int index, int psn, int reason, int detail) {
        int at = SRD_OFFSET + DROPS_OFFSET + index * DROP_ENTRY_LENGTH;
        m.putIntBE(at, psn);
        m.putIntBE(at + 4, (reason & 0xFF) << 24 | (detail & 0xFF) << 16);
    }
}
