package io.srdnic.srd.transport.srd;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.port.AckWriter;
import java.util.Arrays;

/**
 * The responder's view of one context's PSN space: every PSN below {@link #base()} is done
 * (delivered, dropped with an indication, or acknowledged at the sender); a bitmap of {@code size}
 * PSNs from the base marks those received since. This is the dedup that makes delivery at most once.
 * Drops (packets that failed the QP checks) are marked done too, and held as "pending" until the
 * sender's base passes them: every ACK repeats them and holds its cumulative PSN below them, so a
 * lost ACK can never turn a dropped message into a delivered one. Pending drops are kept in PSN
 * order and an ACK carries the lowest ones: the sender's base waits on the lowest, so that one is
 * always told first and no drop can starve behind newer ones.
 */
public final class ReceiveWindow implements AckWriter.SackSource {
    public static final int NEW = 0;
    public static final int DUPLICATE = 1;
    public static final int OLD = 2;
    static final int BEYOND = 3;

    /**
     * Unconfirmed drops held at once (every one lies in the window); a failing packet beyond this
     * is left unacknowledged, to be retried.
     */
    public static final int MAX_PENDING_DROPS = TransportConfig.MAX_WINDOW;

    private final long[] bits;
    private final int mask;
    private int base;
    private final int[] pendingPsn = new int[MAX_PENDING_DROPS];
    private final byte[] pendingReason = new byte[MAX_PENDING_DROPS];
    private int pendingCount;

    ReceiveWindow(int size) {
        this.bits = new long[size / 64];
        this.mask = size - 1;
    }

    /** Starts over at {@code newBase}: a new peer, or a peer that restarted (new epoch). */
    public void reset(int newBase) {
        Arrays.fill(bits, 0);
        pendingCount = 0;
        base = newBase;
    }

    int size() {
        return mask + 1;
    }

    public int base() {
        return base;
    }

    public int classify(int psn) {
        int d = psn - base;
        if (d < 0) {
            return OLD;
        }
        if (d > mask) {
            return BEYOND;
        }
        return get(psn) ? DUPLICATE : NEW;
    }

    /** Marks a NEW psn received and advances the base over every received PSN. */
    public void mark(int psn) {
        set(psn);
        advance();
    }

    /**
     * The sender says everything below {@code senderBase} is acknowledged: never accept those again.
     * The caller has bounded the slide by the window (a far send base is refused, not believed).
     */
    public void slideTo(int senderBase) {
        forgetConfirmedDrops(senderBase);
        int d = senderBase - base;
        if (d <= 0) {
            return;
        }
        if (d > mask) {
            Arrays.fill(bits, 0);
            base = senderBase;
        } else {
            while (base != senderBase) {
                clear(base);
                base++;
            }
        }
        advance();
    }

    private void advance() {
        while (get(base)) {
            clear(base);
            base++;
        }
    }

    /** Drops the sender has not yet confirmed (PSN at or above its send base); repeated in every ACK. */
    public int pendingDrops() {
        return pendingCount;
    }

    public int pendingDropPsn(int i) {
        return pendingPsn[i];
    }

    public int pendingDropReason(int i) {
        return pendingReason[i];
    }

    public boolean canRecordDrop() {
        return pendingCount < MAX_PENDING_DROPS;
    }

    /** Records a drop in PSN order (drops mostly come in order, so the shift is short). */
    public void recordDrop(int psn, int reason) {
        int i = pendingCount;
        while (i > 0 && pendingPsn[i - 1] - psn > 0) {
            pendingPsn[i] = pendingPsn[i - 1];
            pendingReason[i] = pendingReason[i - 1];
            i--;
        }
        pendingPsn[i] = psn;
        pendingReason[i] = (byte) reason;
        pendingCount++;
    }

    /**
     * The cumulative PSN an ACK may claim: the base, held back at the lowest unconfirmed drop so the
     * requester can never take a dropped message for a delivered one.
     */
    public int cumulative() {
        return pendingCount > 0 && pendingPsn[0] - base < 0 ? pendingPsn[0] : base;
    }

    /**
     * 64 bits of the selective-ack bitmap from {@code cumulative}: bit i = PSN cumulative + 1 + 64 *
     * word + i received, drops excluded. Word-wide: the bitmap's bits are taken 64 at a time.
     */
    @Override
    public long sackWord(int cumulative, int word) {
        int first = cumulative + 1 + 64 * word;
        long w = ringBits(first);
        int belowBase = base - first;              // PSNs before the base are all done
        if (belowBase > 0) {
            w |= belowBase >= 64 ? -1L : (1L << belowBase) - 1;
        }
        int beyond = first + 63 - (base + mask);   // PSNs past the window alias other slots
        if (beyond > 0) {
            w &= beyond >= 64 ? 0 : -1L >>> beyond;
        }
        for (int i = 0; i < pendingCount; i++) {
            int bit = pendingPsn[i] - first;
            if (bit >= 0 && bit < 64) {
                w &= ~(1L << bit);
            }
        }
        return w;
    }

    /** The 64 bitmap bits starting at {@code psn}'s slot, wrapping around the ring. */
    private long ringBits(int psn) {
        int pos = psn & mask;
        int index = pos >>> 6;
        int shift = pos & 63;
        long low = bits[index] >>> shift;
        return shift == 0 ? low : low | bits[(index + 1) & (bits.length - 1)] << (64 - shift);
    }

    /** The bit-at-a-time definition of {@link #sackWord}, kept for the test that checks it. */
    long sackWordSlowly(int cumulative, int word) {
        long w = 0;
        int first = cumulative + 1 + 64 * word;
        for (int i = 0; i < 64; i++) {
            int d = first + i - base;
            if (d < 0 || (d <= mask && get(first + i))) {
                w |= 1L << i;
            }
        }
        for (int i = 0; i < pendingCount; i++) {
            int bit = pendingPsn[i] - first;
            if (bit >= 0 && bit < 64) {
                w &= ~(1L << bit);
            }
        }
        return w;
    }

    /** Drops below the sender's base are confirmed: they are the lowest, a prefix of the ordered list. */
    private void forgetConfirmedDrops(int senderBase) {
        int confirmed = 0;
        while (confirmed < pendingCount && pendingPsn[confirmed] - senderBase < 0) {
            confirmed++;
        }
        if (confirmed > 0) {
            pendingCount -= confirmed;
            System.arraycopy(pendingPsn, confirmed, pendingPsn, 0, pendingCount);
            System.arraycopy(pendingReason, confirmed, pendingReason, 0, pendingCount);
        }
    }

    private boolean get(int psn) {
        int i = psn & mask;
        return (bits[i >>> 6] & (1L << i)) != 0;
    }

    private void set(int psn) {
        int i = psn & mask;
        bits[i >>> 6] |= 1L << i;
    }

    private void clear(int psn) {
        int i = psn & mask;
        bits[i >>> 6] &= ~(1L << i);
    }
}
