package io.srdnic.srd.transport.engine;

import java.util.Arrays;

/**
 * The K paths (entropy values) one context sprays over, with per-path RTT, transmit and loss
 * counts. A path that suffers a retransmission timeout, or loses several packets in a row, is avoided; when its avoidance ends it is
 * probed, and used again only after the probe is answered — a dead path costs one probe per
 * (doubling) avoidance period, never stalled data.
 */
public final class PathSet {
    public static final int NONE = -1;
    /** Consecutive losses that condemn a path: at 10% random loss a healthy path does this once in a thousand. */
    public static final int LOSS_RUN_TO_AVOID = 3;

    private final int count;
    private final long baseAvoid;
    public final long[] srtt;
    public final long[] transmits;
    public final long[] losses;
    public final long[] timeouts;
    /** Losses on a path since it last delivered: a run of them means the path, not chance, is at fault. */
    private final int[] lossRun;
    private final boolean[] healthy;
    private final long[] avoidUntil;
    /** When each path was last made avoided. */
    private final long[] avoidedAt;
    private final long[] avoidFor;
    private final long[] probeDeadline;
    /** Paths not healthy now: while 0 (the common case) the per-cycle probe checks are one compare. */
    private int avoided;
    private int cursor;

    public PathSet(int count, long baseAvoid, int start) {
        this.count = count;
        this.baseAvoid = baseAvoid;
        srtt = new long[count];
        transmits = new long[count];
        losses = new long[count];
        timeouts = new long[count];
        lossRun = new int[count];
        healthy = new boolean[count];
        avoidUntil = new long[count];
        avoidedAt = new long[count];
        avoidFor = new long[count];
        probeDeadline = new long[count];
        reset(start);
    }

    /** Every path healthy again, counters and RTTs forgotten: a new remote. */
    public void reset(int start) {
        Arrays.fill(srtt, 0);
        Arrays.fill(transmits, 0);
        Arrays.fill(losses, 0);
        Arrays.fill(timeouts, 0);
        Arrays.fill(lossRun, 0);
        Arrays.fill(healthy, true);
        Arrays.fill(avoidUntil, 0);
        Arrays.fill(avoidFor, baseAvoid);
        Arrays.fill(probeDeadline, 0);
        avoided = 0;
        cursor = Math.floorMod(start, count);
    }

    public int count() {
        return count;
    }

    /** The next path in rotation that is healthy and not {@code exclude}; degrades gracefully when none is. */
    public int choose(int exclude) {
        int fallback = NONE;
        for (int i = 0; i < count; i++) {
            int p = cursor;
            cursor = cursor + 1 == count ? 0 : cursor + 1;
            if (healthy[p]) {
                if (p != exclude) {
                    return p;
                }
                fallback = p;
            }
        }
        if (fallback != NONE) {
            return fallback;
        }
        // Every path is avoided: keep sending (round robin) rather than stall the context.
        int p = cursor;
        cursor = cursor + 1 == count ? 0 : cursor + 1;
        return p == exclude && count > 1 ? choose(NONE) : p;
    }

    public void onTransmit(int path) {
        transmits[path]++;
    }

    public void onRtt(int path, long rtt) {
        srtt[path] = srtt[path] == 0 ? rtt : srtt[path] + (rtt - srtt[path]) / 8;
        lossRun[path] = 0;
    }

    /** A loss found by RACK; {@link #LOSS_RUN_TO_AVOID} in a row with nothing delivered avoids the path like a timeout. */
    public void onLoss(int path, long now) {
        losses[path]++;
        if (++lossRun[path] >= LOSS_RUN_TO_AVOID) {
            lossRun[path] = 0;
            avoid(path, now);
        }
    }

    /** A retransmission timeout on {@code path}: avoid it for a while (doubling while it stays dead). */
    public void onTimeout(int path, long now) {
        timeouts[path]++;
        avoid(path, now);
    }

    private void avoid(int path, long now) {
        if (healthy[path]) {
            healthy[path] = false;
            avoided++;
            avoidUntil[path] = now + avoidFor[path];
            avoidedAt[path] = now;
            probeDeadline[path] = 0;
        }
    }

    /**
     * The losses and timeouts since {@code since} proved spurious (a loss episode undone): every path
     * they made avoided is healthy again at once, as if its probe had been answered — nothing was
     * lost on it, and waiting for a probe would only narrow the spray.
     */
    public void forgiveSince(long since) {
        if (avoided == 0) {
            return;
        }
        for (int p = 0; p < count; p++) {
            if (!healthy[p] && avoidedAt[p] - since >= 0) {
                onProbeReply(p);
            }
        }
    }

    /** Paths whose avoidance has ended and that need a probe now; returns one or NONE. */
    public int probeDue(long now) {
        if (avoided == 0) {
            return NONE;
        }
        for (int p = 0; p < count; p++) {
            if (!healthy[p] && probeDeadline[p] == 0 && now - avoidUntil[p] >= 0) {
                return p;
            }
        }
        return NONE;
    }

    public void onProbeSent(int path, long now, long timeout) {
        probeDeadline[path] = now + timeout;
    }

    /** Unanswered probes: avoid those paths again, twice as long. */
    public void expireProbes(long now) {
        if (avoided == 0) {
            return;
        }
        for (int p = 0; p < count; p++) {
            if (!healthy[p] && probeDeadline[p] != 0 && now - probeDeadline[p] >= 0) {
                avoidFor[p] = Math.min(avoidFor[p] * 2, baseAvoid * 64);
                avoidUntil[p] = now + avoidFor[p];
                probeDeadline[p] = 0;
            }
        }
    }

    public void onProbeReply(int path) {
        if (path >= 0 && path < count) {
            if (!healthy[path]) {
                avoided--;
            }
            healthy[path] = true;
            avoidFor[path] = baseAvoid;
            probeDeadline[path] = 0;
        }
    }

    public boolean isHealthy(int path) {
        return healthy[path];
    }

    /** The earliest time a probe is due or expires, or Long.MAX_VALUE. */
    public long nextDeadline() {
        long next = Long.MAX_VALUE;
        if (avoided == 0) {
            return next;
        }
        for (int p = 0; p < count; p++) {
            if (!healthy[p]) {
                next = Math.min(next, probeDeadline[p] == 0 ? avoidUntil[p] : probeDeadline[p]);
            }
        }
        return next;
    }

    public int healthyCount() {
        return count - avoided;
    }
}
