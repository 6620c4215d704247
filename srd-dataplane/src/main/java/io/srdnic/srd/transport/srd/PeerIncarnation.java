package io.srdnic.srd.transport.srd;

/**
 * Which incarnation of the peer's sending half — its (epoch, context id) — a responder context
 * follows, and which it may move on to. The receive window belongs to one incarnation: moving to
 * another starts it afresh, so returning to one already left would take its retransmissions as
 * new and deliver them twice.
 * <p>
 * "Later" is serial-number order (wrap-safe, RFC 1982), which is not transitive: E + 2^30 is later
 * than E, E + 2^31 + 1 later than that, and E later again. So every step forward is measured, and
 * the steps taken since this context first heard from the peer must stay under half the circle,
 * for epochs and, within one epoch, for context ids. On such an arc every incarnation left behind
 * stays earlier than the current one for good. A real peer moves a few 64 ms epoch ticks per
 * restart and a few context ids per re-created context, nowhere near 2^31; a forged packet that
 * would need more is refused as stale.
 */
public final class PeerIncarnation {
    private static final long HALF_CIRCLE = 1L << 31;
    private boolean started;
    private int epoch;
    private int context;
    /** Epoch ticks moved forward since the first packet. */
    private long epochSteps;
    /** Context ids moved forward within the current epoch. */
    private long contextSteps;

    public boolean started() {
        return started;
    }

    public boolean is(int peerEpoch, int peerContext) {
        return started && epoch == peerEpoch && context == peerContext;
    }

    /** Whether (peerEpoch, peerContext) may replace the current incarnation: first contact, or later along the arc. */
    public boolean mayMoveTo(int peerEpoch, int peerContext) {
        if (!started) {
            return true;
        }
        if (peerEpoch != epoch) {
            int step = peerEpoch - epoch;
            return step > 0 && epochSteps + step < HALF_CIRCLE;
        }
        int step = peerContext - context;
        return step > 0 && contextSteps + step < HALF_CIRCLE;
    }

    /** Follows (peerEpoch, peerContext) from now on; {@link #mayMoveTo} said yes. */
    public void moveTo(int peerEpoch, int peerContext) {
        if (started && peerEpoch == epoch) {
            contextSteps += peerContext - context;
        } else {
            if (started) {
                epochSteps += peerEpoch - epoch;
            }
            contextSteps = 0; // a new epoch is a new process: its context ids start anywhere
        }
        started = true;
        epoch = peerEpoch;
        context = peerContext;
    }

    int epoch() {
        return epoch;
    }

    int context() {
        return context;
    }

    /** Forgets the peer (the context slot is reused). */
    void reset() {
        started = false;
        epoch = 0;
        context = 0;
        epochSteps = 0;
        contextSteps = 0;
    }
}
