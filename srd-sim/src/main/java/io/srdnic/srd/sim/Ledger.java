package io.srdnic.srd.sim;

import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What happened to every message of a run, sender by sender and sequence number by sequence number:
 * what it was (well-formed — a SEND_WITH_IMM, a SEND, a UD datagram or an RDMA operation — or one of the hostile kinds)
 * and which QP it was meant for, how its send completed, and where and how often it was delivered.
 * Deliveries are what the application polled from a receive CQ; a message is named by its sender
 * (source IP) and sequence number (immediate data; a SEND has none, so its first 8 bytes), and
 * carries the sequence number in its first bytes and a checksum byte last.
 * <p>
 * A UD datagram is not reliable: the network may lose or duplicate it and nothing retransmits or
 * filters it, so it completes SUCCESS as it leaves whether or not it arrives, and arriving twice
 * is not a duplicate delivery. It must still land intact, and only in the UD QP it was sent to.
 * <p>
 * QPs are named by a uid that no other QP of the run ever has, whatever QPN the transport gives it,
 * so a message that lands in a QP created later with the same number, or in a restarted host's new
 * QP, shows as misdelivered.
 */
final class Ledger {
    static final byte NORMAL = 0;
    static final byte BAD_QPN = 1;
    static final byte BAD_QKEY = 2;
    static final byte TOO_LONG = 3;
    static final byte RNR = 4;
    /** Well-formed too, named by its first 8 bytes: a SEND without immediate data ({@link SimOp#SEND}). */
    static final byte SEND = 5;
    /** Well-formed, unreliable: a datagram from the sender's UD QP to the destination's ({@link SimOp#UD}). */
    static final byte UD = 6;
    /**
     * Well-formed RDMA ({@link SimOp#RDMA_WRITE}, {@link SimOp#RDMA_WRITE_IMM}, {@link SimOp#RDMA_READ}): no
     * receive tells of a WRITE or a READ, so they count as delivered when {@link RdmaChecks} finds their
     * bytes where they belong at their completion; a WRITE with immediate also consumes a receive.
     */
    static final byte RDMA_WRITE = 7;
    static final byte RDMA_WRITE_IMM = 8;
    static final byte RDMA_READ = 9;
    static final String[] KIND_NAMES = {"well-formed", "to-absent-qpn", "wrong-qkey", "too-long", "to-qp-without-receives",
        "send-without-immediate", "ud-datagram", "rdma-write", "rdma-write-with-immediate", "rdma-read"};
    /** The status each kind must complete with when nothing else intervenes. */
    static final int[] EXPECTED = {WcStatus.SUCCESS, WcStatus.BAD_DEST_QP_ERROR, WcStatus.REMOTE_INVALID_REQUEST_ERROR,
        WcStatus.REMOTE_OPERATION_ERROR, WcStatus.RNR_ERROR, WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS,
        WcStatus.SUCCESS};
    static final byte NOT_COMPLETED = -1;
    /** The uid of "no QP" (a send to a QPN no QP has). */
    static final short NO_QP = -1;

    private static final int POSTED = 1;
    private static final int ORPHANED = 2;
    private static final int FLUSH_EXPECTED = 4;
    private static final int DELIVERED_OK = 8;
    private static final int MAX_NOTES = 24;

    private final int size;
    private final int tooLongLength;
    private byte[][] kind = new byte[0][];
    private byte[][] status = new byte[0][];
    private byte[][] deliveries = new byte[0][];
    private byte[][] flags = new byte[0][];
    private short[][] target = new short[0][];

    final List<String> notes = new ArrayList<>();
    long duplicates;
    long misdelivered;
    long corrupt;
    long hostileDelivered;
    long completedTwice;
    long spurious;
    long flushViolations;
    long orphanedCompletions;

    Ledger(int size, int tooLongLength) {
        this.size = size;
        this.tooLongLength = tooLongLength;
    }

    void expect(int sender, long quota) {
        if (kind.length <= sender) {
            kind = Arrays.copyOf(kind, sender + 1);
            status = Arrays.copyOf(status, sender + 1);
            deliveries = Arrays.copyOf(deliveries, sender + 1);
            flags = Arrays.copyOf(flags, sender + 1);
            target = Arrays.copyOf(target, sender + 1);
        }
        int n = Math.toIntExact(quota);
        kind[sender] = new byte[n];
        status[sender] = new byte[n];
        Arrays.fill(status[sender], NOT_COMPLETED);
        deliveries[sender] = new byte[n];
        flags[sender] = new byte[n];
        target[sender] = new short[n];
    }

    int length(byte k) {
        return k == TOO_LONG ? tooLongLength : size;
    }

    /** Whether a message of this kind must be delivered (not one the responder's QP checks must refuse). */
    static boolean wellFormed(byte k) {
        return k == NORMAL || k == SEND || k == UD || isRdma(k);
    }

    static boolean isRdma(byte k) {
        return k == RDMA_WRITE || k == RDMA_WRITE_IMM || k == RDMA_READ;
    }

    /** Whether a message of this kind carries its sequence number as immediate data. */
    static boolean withImmediate(byte k) {
        return k != SEND && k != RDMA_WRITE && k != RDMA_READ;
    }

    /** The send work request's opcode for a message of this kind. */
    static int opcode(byte k) {
        return switch (k) {
            case SEND -> SendOpcode.SEND;
            case RDMA_WRITE -> SendOpcode.RDMA_WRITE;
            case RDMA_WRITE_IMM -> SendOpcode.RDMA_WRITE_WITH_IMM;
            case RDMA_READ -> SendOpcode.RDMA_READ;
            default -> SendOpcode.SEND_WITH_IMM;
        };
    }

    static byte checkByte(long seq, int sender) {
        return (byte) (seq * 31 + sender);
    }

    void posted(int sender, long seq, byte k, int targetUid) {
        int i = (int) seq;
        kind[sender][i] = k;
        target[sender][i] = (short) targetUid;
        flags[sender][i] |= POSTED;
    }

    /** Whether {@code sender} posted message {@code seq}. */
    boolean known(int sender, long seq) {
        return sender >= 0 && sender < flags.length && flags[sender] != null && seq >= 0 && seq < flags[sender].length
            && (flags[sender][(int) seq] & POSTED) != 0;
    }

    /** A send completion for an outstanding work request of {@code sender}. */
    void completed(int sender, long seq, int st) {
        int i = (int) seq;
        if (status[sender][i] != NOT_COMPLETED) {
            completedTwice++;
            note("host %d message %d completed twice: %s, then %s", sender, seq, WcStatus.name(status[sender][i]), WcStatus.name(st));
            return;
        }
        status[sender][i] = (byte) st;
        if ((flags[sender][i] & FLUSH_EXPECTED) != 0 && st != WcStatus.WR_FLUSH_ERROR) {
            flushViolations++;
            note("host %d message %d was outstanding when its address handle was destroyed but completed %s, not WR_FLUSH_ERROR",
                sender, seq, WcStatus.name(st));
        }
    }

    /**
     * A send completion the application no longer expects: for a request orphaned by its QP's
     * destroy (the transport may flush those late) it counts; anything else is spurious.
     */
    void lateCompletion(int sender, long seq, int st) {
        if (!known(sender, seq)) {
            spurious++;
            note("host %d got a send completion (%s) for message %d, which it never posted", sender, WcStatus.name(st), seq);
            return;
        }
        int i = (int) seq;
        if ((flags[sender][i] & ORPHANED) != 0 && status[sender][i] == NOT_COMPLETED) {
            orphanedCompletions++;
            status[sender][i] = (byte) st;
            return;
        }
        if (status[sender][i] != NOT_COMPLETED) {
            completedTwice++;
            note("host %d message %d completed twice: %s, then %s", sender, seq, WcStatus.name(status[sender][i]), WcStatus.name(st));
        } else {
            spurious++;
            note("host %d got a send completion (%s) for message %d, which was not outstanding", sender, WcStatus.name(st), seq);
        }
    }

    /** The request died with its QP (destroy) or its transport (restart) without a completion. */
    void orphan(int sender, long seq) {
        flags[sender][(int) seq] |= ORPHANED;
    }

    /** The request was outstanding when its address handle was destroyed: it must complete WR_FLUSH_ERROR. */
    void expectFlush(int sender, long seq) {
        flags[sender][(int) seq] |= FLUSH_EXPECTED;
    }

    boolean isCompleted(int sender, long seq) {
        return status[sender][(int) seq] != NOT_COMPLETED;
    }

    /** What message {@code seq} of {@code sender}, a posted one, is. */
    byte kind(int sender, long seq) {
        return kind[sender][(int) seq];
    }

    /**
     * A successful receive completion polled from the receive CQ of QP {@code uid} on host
     * {@code receiver}; the payload is at {@code at} in {@code buffer} (null: the QP has no buffers).
     */
    void delivered(int receiver, int uid, int srcIp, boolean hasImm, int imm, int byteLength, MemorySegment buffer, long at) {
        int sender = srcIp - SimHost.ip(0);
        long seq = hasImm ? Integer.toUnsignedLong(imm)
            : buffer != null && byteLength >= 8 ? buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, at) : -1;
        if (!known(sender, seq)) {
            corrupt++;
            note("host %d QP uid %d received a message no host sent (source %s, %s %d)", receiver, uid,
                Integer.toHexString(srcIp), hasImm ? "immediate" : "first 8 bytes", seq);
            return;
        }
        byte k = kind[sender][(int) seq];
        int len = length(k);
        boolean intact = !isRdma(k) && byteLength == len && buffer != null && hasImm == withImmediate(k)
            && (len < 8 || buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, at) == seq)
            && (len <= 8 || buffer.get(ValueLayout.JAVA_BYTE, at + len - 1) == checkByte(seq, sender));
        book(receiver, uid, sender, seq, intact, byteLength);
    }

    /**
     * A successful receive completion consumed by an RDMA WRITE with immediate (RECV_RDMA_WITH_IMM),
     * polled at QP {@code uid} of host {@code receiver}: the immediate names the message, the length
     * is the write's, and {@code bytesInPlace} says whether the write's bytes were in the receiver's
     * region when the receive was polled (see {@link RdmaChecks#writeWithImmediateReceived}).
     */
    void deliveredByWrite(int receiver, int uid, int srcIp, boolean hasImm, int imm, int byteLength, boolean bytesInPlace) {
        int sender = srcIp - SimHost.ip(0);
        long seq = hasImm ? Integer.toUnsignedLong(imm) : -1;
        if (!known(sender, seq)) {
            corrupt++;
            note("host %d QP uid %d received an RDMA write with immediate no host sent (source %s, immediate %d)", receiver, uid,
                Integer.toHexString(srcIp), seq);
            return;
        }
        byte k = kind[sender][(int) seq];
        book(receiver, uid, sender, seq, k == RDMA_WRITE_IMM && byteLength == length(k) && bytesInPlace, byteLength);
    }

    /** Books a delivery of message {@code seq} of {@code sender} at QP {@code uid} of {@code receiver}: duplicates, damage, misdelivery. */
    private void book(int receiver, int uid, int sender, long seq, boolean intact, int byteLength) {
        int i = (int) seq;
        byte k = kind[sender][i];
        if (deliveries[sender][i] < Byte.MAX_VALUE) {
            deliveries[sender][i]++;
        }
        if (deliveries[sender][i] > 1 && k != UD) {
            duplicates++;
            note("host %d message %d (%s) delivered again, to host %d QP uid %d (%s)", sender, seq, KIND_NAMES[k], receiver, uid,
                uid == target[sender][i] ? "the QP it was sent to" : "not the QP it was sent to");
        }
        if (!intact) {
            corrupt++;
            note("host %d message %d (%s) delivered damaged to host %d QP uid %d: %d bytes", sender, seq, KIND_NAMES[k], receiver,
                uid, byteLength);
        }
        if (uid != target[sender][i]) {
            misdelivered++;
            note("host %d message %d (%s) for QP uid %d landed in host %d QP uid %d", sender, seq, KIND_NAMES[k],
                target[sender][i], receiver, uid);
        }
        if (!wellFormed(k)) {
            hostileDelivered++;
            note("host %d message %d (%s) must fail the QP checks but was delivered to host %d QP uid %d", sender, seq,
                KIND_NAMES[k], receiver, uid);
        }
        if (intact && uid == target[sender][i] && wellFormed(k)) {
            flags[sender][i] |= DELIVERED_OK;
        }
    }

    /**
     * The verdict of {@link RdmaChecks} on an RDMA message that completed SUCCESS: its bytes were
     * where they belong ({@code ok}), which is what delivering a WRITE or a READ means; or damaged.
     */
    void rdmaChecked(int sender, long seq, boolean ok, String what) {
        int i = (int) seq;
        byte k = kind[sender][i];
        if (!ok) {
            corrupt++;
            note("host %d message %d (%s) completed SUCCESS but %s", sender, seq, KIND_NAMES[k], what);
        } else if (k != RDMA_WRITE_IMM) { // a write with immediate is delivered by its receive
            if (deliveries[sender][i] < Byte.MAX_VALUE) {
                deliveries[sender][i]++;
            }
            flags[sender][i] |= DELIVERED_OK;
        }
    }

    void note(String format, Object... args) {
        if (notes.size() < MAX_NOTES) {
            notes.add(String.format(Locale.ROOT, format, args));
        } else if (notes.size() == MAX_NOTES) {
            notes.add("...");
        }
    }

    /**
     * The per-message verdicts, over every sender's quota. {@code qpsCanVanish}: a delivered message
     * may complete BAD_DEST_QP_ERROR (its QP went away before its ACK reached the sender).
     */
    Totals totals(Set<Integer> explainedErrors, boolean qpsCanVanish) {
        Totals t = new Totals();
        for (int sender = 0; sender < flags.length; sender++) {
            if (flags[sender] == null) {
                continue;
            }
            for (int i = 0; i < flags[sender].length; i++) {
                int f = flags[sender][i];
                if ((f & POSTED) == 0) {
                    t.neverPosted++; // the run ended first: unfinished, and lost
                    t.unfinished++;
                    t.lost++;
                    continue;
                }
                byte k = kind[sender][i];
                int st = status[sender][i];
                boolean deliveredOk = (f & DELIVERED_OK) != 0;
                if (deliveredOk) {
                    t.delivered++;
                }
                if (!wellFormed(k)) {
                    t.hostile++;
                }
                if (st == NOT_COMPLETED) {
                    if ((f & ORPHANED) != 0) {
                        t.orphaned++;
                        continue;
                    }
                    t.unfinished++;
                    if (deliveries[sender][i] == 0) {
                        t.lost++;
                    }
                    note("host %d message %d (%s) never completed", sender, i, KIND_NAMES[k]);
                    continue;
                }
                if (st == WcStatus.SUCCESS) {
                    if (!wellFormed(k)) {
                        t.hostileSucceeded++;
                        note("host %d message %d (%s) completed SUCCESS", sender, i, KIND_NAMES[k]);
                    } else if (!deliveredOk && k != UD) { // a datagram completes as it leaves: the network may lose it
                        t.successWithoutDelivery++;
                        note("host %d message %d completed SUCCESS but was not delivered intact to its QP (delivered %d times)",
                            sender, i, deliveries[sender][i]);
                    }
                } else if (deliveries[sender][i] > 0) {
                    t.deliveredButFailed++;
                    if (deliveredOk && isRefusal(st) && !(st == WcStatus.BAD_DEST_QP_ERROR && qpsCanVanish)) {
                        t.deliveredButRefused++;
                        note("host %d message %d was delivered but completed %s, as if the responder had refused it", sender, i,
                            WcStatus.name(st));
                    }
                }
                if (st != EXPECTED[k] && !explainedErrors.contains(st) && (f & ORPHANED) == 0) {
                    t.unexplainedStatus++;
                    note("host %d message %d (%s) completed %s: expected %s%s", sender, i, KIND_NAMES[k], WcStatus.name(st),
                        WcStatus.name(EXPECTED[k]), explainedErrors.isEmpty() ? "" : " or one of " + names(explainedErrors));
                }
            }
        }
        return t;
    }

    /** A status that says the responder refused the message (a drop indication), not that the sender could not find out. */
    private static boolean isRefusal(int status) {
        return status == WcStatus.BAD_DEST_QP_ERROR || status == WcStatus.RNR_ERROR || status == WcStatus.REMOTE_OPERATION_ERROR
            || status == WcStatus.REMOTE_INVALID_REQUEST_ERROR || status == WcStatus.REMOTE_ACCESS_ERROR;
    }

    private static List<String> names(Set<Integer> statuses) {
        return statuses.stream().map(WcStatus::name).toList();
    }

    static final class Totals {
        long delivered;
        long hostile;
        long orphaned;
        long unfinished;
        long lost;
        long successWithoutDelivery;
        long hostileSucceeded;
        long deliveredButFailed;
        long deliveredButRefused;
        long unexplainedStatus;
        long neverPosted;
    }
}
