package io.srdnic.srd.transport.engine;

import java.util.Arrays;

/**
 * The books of one flow's loss episode, kept so that it can be undone when every retransmission
 * in it proves spurious, as TCP does (RFC 3522's Eifel detection, RFC 4015's response, Linux's
 * undo_marker and undo_retrans with DSACK). An episode starts at the first loss after a clean
 * spell; it saves the congestion window and the RTO backoff as they were, counts each
 * retransmission by PSN, and takes one back for each piece of evidence that a copy it sent was
 * not needed:
 * <ul>
 * <li>a duplicate report (the responder received that PSN again, {@code FLAG_DUPLICATE}: TCP's
 *     DSACK) proves one retransmission of it spurious;</li>
 * <li>an ACK echoing the timestamp of a packet's first transmission (Eifel) proves the original
 *     arrived, so every retransmission of it was spurious.</li>
 * </ul>
 * When none is left unproven the episode is undone: window and backoff back to what they were.
 * A PSN never retransmitted proves nothing (a network duplicate), and one PSN cannot prove more
 * than it was retransmitted, so forged reports can at most give back what the flow had before the
 * episode, never more. A truly lost packet's retransmission is never reported twice, so an
 * episode with one is never undone.
 * <p>
 * It also keeps RACK's reordering window multiplier (RFC 8985 §6.2): each episode in which a
 * retransmission proved spurious widens the window by a quarter RTT, up to a whole one; sixteen
 * episodes without one narrow it back.
 */
public final class SpuriousUndo {
    static final int MAX_REORDER_MULTIPLIER = 4;
    static final int EPISODES_TO_FORGET_REORDERING = 16;
    /** Retransmissions not yet proven spurious, per PSN from {@link #base}: a window's worth of PSNs twice. */
    private final byte[] retransmitted;
    private boolean active;
    private int base;
    /** One past the highest PSN retransmitted in the episode. */
    private int high;
    private int unproven;
    /** A retransmission fell outside the tracked PSNs: the episode cannot be proven wholly spurious. */
    private boolean untracked;
    private boolean provenAny;
    /** Whether anything went again in this episode (a sequence NAK's gap may open one that all arrives after all). */
    private boolean retransmittedAny;
    /**
     * The episode has been given back at least once (F-RTO gives it back without ending it, so a later
     * cut in it may be given back again, but it is one episode).
     */
    private boolean undoneOnce;
    private long lastRetransmit;
    private double savedWindow;
    private int savedBackoff;
    private int reorderMultiplier = 1;
    private int episodesSinceSpurious;

    SpuriousUndo(int window) {
        retransmitted = new byte[2 * window];
    }

    void reset() {
        active = false;
        reorderMultiplier = 1;
        episodesSinceSpurious = 0;
    }

    /**
     * Whether a loss found now starts a new episode: none is open, or the open one is over (every
     * PSN it retransmitted acknowledged, and a round trip since its last retransmission for the
     * duplicate reports to come back) without being undone.
     */
    boolean startsEpisode(int sendBase, long now, long roundTrip) {
        return !active || (sendBase - high >= 0 && now - lastRetransmit > roundTrip);
    }

    /** A loss episode starts with the flow's window and RTO backoff as they are, before it reduces them. */
    void begin(int sendBase, double window, int backoff) {
        if (active && !provenAny && ++episodesSinceSpurious >= EPISODES_TO_FORGET_REORDERING) {
            reorderMultiplier = 1;
            episodesSinceSpurious = 0;
        }
        Arrays.fill(retransmitted, (byte) 0);
        active = true;
        base = sendBase;
        high = sendBase;
        unproven = 0;
        untracked = false;
        provenAny = false;
        retransmittedAny = false;
        undoneOnce = false;
        savedWindow = window;
        savedBackoff = backoff;
    }

    /** Packet {@code psn} went again in this episode; returns whether it is the episode's first retransmission. */
    boolean onRetransmit(int psn, long now) {
        if (!active) {
            return false;
        }
        boolean first = !retransmittedAny;
        retransmittedAny = true;
        unproven++;
        lastRetransmit = now;
        int off = psn - base;
        if (off < 0 || off >= retransmitted.length || retransmitted[off] == Byte.MAX_VALUE) {
            untracked = true;
        } else {
            retransmitted[off]++;
        }
        if (psn - high >= 0) {
            high = psn + 1;
        }
        return first;
    }

    /** The responder received {@code psn} again: one retransmission of it was spurious. Returns how many this proved (0 or 1). */
    int onDuplicate(int psn) {
        return prove(psn, 1);
    }

    /** The ACK echoed the first transmission of {@code psn}: the original arrived, every retransmission of it was spurious. */
    int onOriginalArrived(int psn) {
        return prove(psn, Byte.MAX_VALUE);
    }

    private int prove(int psn, int most) {
        int off = psn - base;
        if (!active || off < 0 || off >= retransmitted.length || retransmitted[off] == 0) {
            return 0; // not retransmitted in this episode: proves nothing
        }
        int n = Math.min(most, retransmitted[off]);
        retransmitted[off] -= (byte) n;
        unproven -= n;
        if (!provenAny) {
            provenAny = true;
            episodesSinceSpurious = 0;
            reorderMultiplier = Math.min(MAX_REORDER_MULTIPLIER, reorderMultiplier + 1);
        }
        return n;
    }

    /** Whether every retransmission of the open episode has proven spurious: it is to be undone now. */
    boolean undoDue() {
        return active && !untracked && unproven == 0 && high != base;
    }

    /** Whether this is the episode's first undo: what the undos counter counts, so undos never exceed the episodes. */
    boolean firstUndo() {
        boolean first = !undoneOnce;
        undoneOnce = true;
        return first;
    }

    /** The episode is undone (or abandoned): nothing more to prove in it. */
    void end() {
        active = false;
    }

    double savedWindow() {
        return savedWindow;
    }

    int savedBackoff() {
        return savedBackoff;
    }

    /** RACK's reordering window, in quarters of an RTT (1 to {@link #MAX_REORDER_MULTIPLIER}). */
    public int reorderMultiplier() {
        return reorderMultiplier;
    }
}
