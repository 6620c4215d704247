package io.srdnic.srd.sim;

import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What a run checks of its RDMA operations, whose bytes go where {@link SimRegion} says: a write's
 * bytes must be in the destination's region when the write completes SUCCESS, and already when the
 * receive a write with immediate consumes is polled while the write is still outstanding (its last
 * packet is held back until the others are acknowledged); a read's bytes must be the destination's
 * read area when the read completes SUCCESS. A write's bytes are a function of its sender and
 * sequence number ({@link #fill}), so either end can tell what must be there.
 * <p>
 * One thing a correct transport allows spoils a write slot: a packet of an earlier write to the same
 * slot that did not succeed (flushed, refused, orphaned by a destroy or crash) may still be in
 * flight and land later. Such a slot is marked, and a mismatch there counts as {@link #overwritten},
 * not as damage; a clean run marks none.
 */
final class RdmaChecks {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** What a read's buffer holds before the read: no read area byte sequence equals it. */
    private static final byte POISON = (byte) 0xA5;

    private final Ledger ledger;
    private final Scenario scenario;
    /** Per sender: the send-queue slot (= its write slot at the destination) each RDMA write was posted from. */
    private final int[][] slotOf;
    /** Per sender: the write slots an unsuccessful write went to, which its late packets may still reach. */
    private final boolean[][] spoiled;
    /** Mismatches excused because the slot was spoiled. */
    long overwritten;

    RdmaChecks(Ledger ledger, Scenario scenario) {
        this.ledger = ledger;
        this.scenario = scenario;
        this.slotOf = new int[scenario.hosts()][];
        this.spoiled = new boolean[scenario.hosts()][];
    }

    void expect(int sender, long quota) {
        slotOf[sender] = new int[Math.toIntExact(quota)];
        spoiled[sender] = new boolean[SimHost.SQ_DEPTH];
    }

    // ---------------------------------------------------------------- the requester

    /** Prepares the buffer of RDMA message {@code seq} of {@code sender}: a write's bytes, or a read's poisoned landing place. */
    static void prepare(byte kind, MemorySegment buffer, long at, int length, long seq, int sender) {
        if (kind == Ledger.RDMA_READ) {
            buffer.asSlice(at, length).fill(POISON);
        } else {
            fill(buffer, at, length, seq, sender);
        }
    }

    /** Where in the destination's region RDMA message {@code seq} of {@code sender}, posted from send-queue slot {@code slot}, goes. */
    long remoteOffset(byte kind, SimRegion destination, int sender, long seq, int slot) {
        return kind == Ledger.RDMA_READ ? destination.readOffset(seq) : destination.writeOffset(scenario.rankAtDestination(sender), slot);
    }

    void posted(int sender, long seq, int slot) {
        slotOf[sender][(int) seq] = slot;
    }

    /**
     * RDMA message {@code seq} of {@code sender} completed with {@code status}; its buffer is at
     * {@code at} in {@code local}, its remote bytes at {@code remoteOffset} in {@code destination}.
     */
    void completed(int sender, long seq, int status, MemorySegment local, long at, SimRegion destination, long remoteOffset) {
        byte kind = ledger.kind(sender, seq);
        int length = ledger.length(kind);
        int slot = slotOf[sender][(int) seq];
        if (status != WcStatus.SUCCESS) {
            if (kind != Ledger.RDMA_READ) {
                spoiled[sender][slot] = true;
            }
            return;
        }
        if (kind == Ledger.RDMA_READ) {
            boolean same = local.asSlice(at, length).mismatch(destination.bytes(remoteOffset, length)) < 0;
            ledger.rdmaChecked(sender, seq, same, "the bytes it read are not the destination's read area at offset " + remoteOffset);
        } else if (holds(destination.memory, remoteOffset, length, seq, sender)) {
            ledger.rdmaChecked(sender, seq, true, null);
        } else if (spoiled[sender][slot]) {
            overwritten++;
        } else {
            ledger.rdmaChecked(sender, seq, false, "its bytes are not in the destination's region (write slot " + slot + ")");
        }
    }

    /** The requests of {@code sender} outstanding when its QP or transport died: their late packets may still land. */
    void orphaned(int sender, long seq) {
        byte kind = ledger.kind(sender, seq);
        if (kind == Ledger.RDMA_WRITE || kind == Ledger.RDMA_WRITE_IMM) {
            spoiled[sender][slotOf[sender][(int) seq]] = true;
        }
    }

    // ---------------------------------------------------------------- the responder

    /**
     * A receive consumed by an RDMA WRITE with immediate from {@code srcIp}, polled at QP {@code uid}
     * of host {@code receiver}, whose region is {@code region}: while the write is outstanding at its
     * sender, its bytes must all be in place already. Once it completed, the slot may hold a later
     * write, and its completion was checked instead.
     */
    void writeWithImmediateReceived(int receiver, int uid, SimRegion region, int srcIp, boolean hasImm, int imm, int byteLength) {
        int sender = srcIp - SimHost.ip(0);
        long seq = Integer.toUnsignedLong(imm);
        boolean inPlace = true;
        if (hasImm && ledger.known(sender, seq) && ledger.kind(sender, seq) == Ledger.RDMA_WRITE_IMM && !ledger.isCompleted(sender, seq)) {
            int slot = slotOf[sender][(int) seq];
            long at = region.writeOffset(scenario.rankAtDestination(sender), slot);
            inPlace = holds(region.memory, at, ledger.length(Ledger.RDMA_WRITE_IMM), seq, sender) || spoiled[sender][slot];
        }
        ledger.deliveredByWrite(receiver, uid, srcIp, hasImm, imm, byteLength, inPlace);
    }

    // ---------------------------------------------------------------- a write's bytes

    /** Word {@code k} of message {@code seq} of {@code sender}: a mix of all three, so no two messages' bytes agree anywhere for long. */
    private static long word(long seq, int sender, int k) {
        long z = seq * 0x9E37_79B9_7F4A_7C15L + sender * 0xBF58_476D_1CE4_E5B9L + k;
        z = (z ^ (z >>> 30)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** Writes the {@code length} bytes of message {@code seq} of {@code sender} at {@code at}. */
    static void fill(MemorySegment m, long at, int length, long seq, int sender) {
        int k = 0;
        for (; 8 * k + 8 <= length; k++) {
            m.set(WORD, at + 8L * k, word(seq, sender, k));
        }
        long last = word(seq, sender, k);
        for (int i = 8 * k; i < length; i++) {
            m.set(ValueLayout.JAVA_BYTE, at + i, (byte) (last >>> (8 * (i - 8 * k))));
        }
    }

    /** Whether the {@code length} bytes at {@code at} are those of message {@code seq} of {@code sender}. */
    static boolean holds(MemorySegment m, long at, int length, long seq, int sender) {
        int k = 0;
        for (; 8 * k + 8 <= length; k++) {
            if (m.get(WORD, at + 8L * k) != word(seq, sender, k)) {
                return false;
            }
        }
        long last = word(seq, sender, k);
        for (int i = 8 * k; i < length; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, at + i) != (byte) (last >>> (8 * (i - 8 * k)))) {
                return false;
            }
        }
        return true;
    }
}
