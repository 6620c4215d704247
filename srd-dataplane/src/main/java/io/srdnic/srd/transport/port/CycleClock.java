package io.srdnic.srd.transport.port;

/**
 * The duty cycle's clock, as the parts it drives read it: the time of the current cycle (set by
 * its send half, which every cycle starts with), the last time the receive half found the RX ring
 * empty (what timers that judge a peer's silence measure up to), and whether work was posted since
 * the last schedule. One per transport, used on its thread only.
 */
public final class CycleClock {
    private long now;
    private long lastDrained;
    private boolean posted;

    /** The time of the current duty cycle. */
    public long now() {
        return now;
    }

    /** A cycle (or its send half) starts at {@code now}. */
    public void start(long now) {
        this.now = now;
    }

    /** The last time the RX ring was found empty: every frame that arrived before it has been read. */
    public long lastDrained() {
        return lastDrained;
    }

    /** The receive half found the RX ring empty in the cycle that started at {@code now}. */
    public void drained(long now) {
        lastDrained = now;
    }

    /** Work was posted: the next send half schedules. */
    public void markPosted() {
        posted = true;
    }

    /** Whether work was posted since the last schedule. */
    public boolean posted() {
        return posted;
    }

    /** The send half schedules what was posted. */
    public void scheduled() {
        posted = false;
    }
}
