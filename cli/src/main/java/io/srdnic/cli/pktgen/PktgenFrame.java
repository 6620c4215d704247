package io.srdnic.cli.pktgen;

import io.srdnic.pmd.Mbuf;

/**
 * pktgen's frames. A data frame:
 * <pre>
 *  0                   6                  12      14       18       22               30
 *  +-------------------+-------------------+-------+--------+--------+----------------+----------
 *  | destination MAC   | source MAC        | 88B5  | magic  | run id | sequence       | pattern..
 *  +-------------------+-------------------+-------+--------+--------+----------------+----------
 * </pre>
 * The pattern is a function of (sequence, offset, run id), so the receiver checks every byte
 * without keeping copies. A credit frame (EtherType 88B6) carries the receiver's count of data
 * frames back to the sender, which keeps a bounded window in flight so no queue overflows.
 * Frames from another run or another program are "foreign". A blast frame (EtherType 88B7) has
 * the header alone: the rate test checks whose frame it is, not its bytes.
 */
final class PktgenFrame {
    static final short ETHERTYPE_DATA = (short) 0x88B5;
    static final short ETHERTYPE_CREDIT = (short) 0x88B6;
    /** A blast frame: the data frame's header with no pattern behind it and no sequence checked. */
    static final short ETHERTYPE_BLAST = (short) 0x88B7;
    static final int MAGIC = 0x53524447; // "SRDG"
    static final int ETHERTYPE_OFFSET = 12;
    static final int MAGIC_OFFSET = 14;
    static final int RUN_ID_OFFSET = 18;
    static final int SEQUENCE_OFFSET = 22;
    static final int HEADER_LENGTH = 30;
    /** The shortest Ethernet frame without its CRC. */
    static final int MIN_LENGTH = 60;

    static final long FOREIGN = -1;
    static final long CORRUPT = -2;

    private PktgenFrame() {
    }

    static void writeData(Mbuf m, long dst, long src, int runId, long sequence, int length) {
        writeHeader(m, dst, src, ETHERTYPE_DATA, runId);
        m.putLongBE(SEQUENCE_OFFSET, sequence);
        for (int off = HEADER_LENGTH; off < length; off++) {
            m.putByte(off, pattern(sequence, off, runId));
        }
        m.frameLength(length);
    }

    static void writeCredit(Mbuf m, long dst, long src, int runId, long received) {
        writeHeader(m, dst, src, ETHERTYPE_CREDIT, runId);
        m.putLongBE(SEQUENCE_OFFSET, received);
        m.frameLength(MIN_LENGTH);
    }

    /** A blast frame: header only, the rest of the mbuf's bytes left as they are (nobody reads them). */
    static void writeBlast(Mbuf m, long dst, long src, int runId, int length) {
        writeHeader(m, dst, src, ETHERTYPE_BLAST, runId);
        m.frameLength(length);
    }

    /** Whether {@code m} is one of this run's blast frames (three reads: cheap enough for the receive loop). */
    static boolean isBlast(Mbuf m, int runId) {
        return m.dataLength() >= HEADER_LENGTH && m.getShortBE(ETHERTYPE_OFFSET) == ETHERTYPE_BLAST
            && m.getIntBE(MAGIC_OFFSET) == MAGIC && m.getIntBE(RUN_ID_OFFSET) == runId;
    }

    private static void writeHeader(Mbuf m, long dst, long src, short etherType, int runId) {
        m.putShortBE(0, (short) (dst >>> 32));
        m.putIntBE(2, (int) dst);
        m.putShortBE(6, (short) (src >>> 32));
        m.putIntBE(8, (int) src);
        m.putShortBE(ETHERTYPE_OFFSET, etherType);
        m.putIntBE(MAGIC_OFFSET, MAGIC);
        m.putIntBE(RUN_ID_OFFSET, runId);
    }

    static byte pattern(long sequence, int offset, int runId) {
        return (byte) (sequence * 131 + offset * 7 + runId);
    }

    /** The credit a frame carries, or {@link #FOREIGN} if it is not this run's credit frame. */
    static long readCredit(Mbuf m, int runId) {
        if (m.dataLength() < HEADER_LENGTH || m.getShortBE(ETHERTYPE_OFFSET) != ETHERTYPE_CREDIT
            || m.getIntBE(MAGIC_OFFSET) != MAGIC || m.getIntBE(RUN_ID_OFFSET) != runId) {
            return FOREIGN;
        }
        return m.getLongBE(SEQUENCE_OFFSET);
    }

    /**
     * Checks a received data frame over all its segments: its sequence number, {@link #FOREIGN} if
     * it is not this run's data frame, or {@link #CORRUPT} if a length or byte is wrong.
     * {@code segment} is a scratch flyweight for walking the chain.
     */
    static long verifyData(Mbuf head, Mbuf segment, int runId, int length) {
        if (head.dataLength() < HEADER_LENGTH || head.getShortBE(ETHERTYPE_OFFSET) != ETHERTYPE_DATA
            || head.getIntBE(MAGIC_OFFSET) != MAGIC || head.getIntBE(RUN_ID_OFFSET) != runId) {
            return FOREIGN;
        }
        long sequence = head.getLongBE(SEQUENCE_OFFSET);
        if (head.packetLength() != length) {
            return CORRUPT;
        }
        int global = 0;
        int segments = 0;
        for (Mbuf s = head; ; s = segment.wrap(s.next())) {
            int len = s.dataLength();
            for (int off = (global == 0 ? HEADER_LENGTH : 0); off < len; off++) {
                if (s.getByte(off) != pattern(sequence, global + off, runId)) {
                    return CORRUPT;
                }
            }
            global += len;
            segments++;
            if (s.next() == 0 || segments == head.segmentCount()) {
                break;
            }
        }
        return global == length && segments == head.segmentCount() ? sequence : CORRUPT;
    }
}
