package io.srdnic.rtrs.link;

/**
 * One path's heartbeat, as rtrs_start_hb/rtrs_hb_work: every interval a HB_MSG goes out and the
 * missed count rises; an HB_ACK, or any receive completion on the path, sets it back to 0; past
 * the allowed misses the path is dead. The time between a HB_MSG and its ACK is the path's
 * current latency.
 */
public final class Heartbeat {
    public static final int NOTHING = 0;
    public static final int SEND = 1;
    public static final int DEAD = 2;

    private final long intervalNanos;
    private final int missedMax;
    private int missed;
    private long next;
    private long lastSent;
    private long latencyNanos;
    private boolean running;

    public Heartbeat(long intervalNanos, int missedMax) {
        this.intervalNanos = intervalNanos;
        this.missedMax = missedMax;
    }

    public void start(long now) {
        running = true;
        missed = 0;
        next = now + intervalNanos;
    }

    public void stop() {
        running = false;
    }

    /** What is due at {@code now}: send a HB_MSG (counted as missed until answered), declare the path dead, or nothing. */
    public int poll(long now) {
        if (!running || now - next < 0) {
            return NOTHING;
        }
        next = now + intervalNanos;
        if (missed >= missedMax) {
            running = false;
            return DEAD;
        }
        missed++;
        lastSent = now;
        return SEND;
    }

    /** Any receive completion on the path: the peer is alive. */
    public void alive() {
        missed = 0;
    }

    public void acked(long now) {
        missed = 0;
        latencyNanos = now - lastSent;
    }

    public int missed() {
        return missed;
    }

    public long latencyNanos() {
        return latencyNanos;
    }
}
