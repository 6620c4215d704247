package io.srdnic.srd.transport.engine;

/**
 * Delay-based congestion window of one context, in the spirit of Swift: the target is the base RTT
 * plus a queueing-delay budget. Below target the window grows additively (about one packet per
 * RTT); above it, it shrinks at most once per RTT, multiplicatively by how far the delay exceeds
 * the target. So an incast of many contexts keeps the bottleneck queue near the budget.
 */
public final class DelayWindow {
    private final double maxWindow;
    private final double additiveIncrease;
    private final double beta;
    private final double maxDecrease;
    private final long targetQueueing;
    private final double initial;
    private double window;
    private long lastDecrease;

    public DelayWindow(double initial, double maxWindow, double additiveIncrease, double beta, double maxDecrease, long targetQueueing) {
        this.initial = initial;
        this.window = initial;
        this.maxWindow = maxWindow;
        this.additiveIncrease = additiveIncrease;
        this.beta = beta;
        this.maxDecrease = maxDecrease;
        this.targetQueueing = targetQueueing;
        this.lastDecrease = Long.MIN_VALUE / 2;
    }

    /** Back to the initial window: a new remote. */
    public void reset() {
        window = initial;
        lastDecrease = Long.MIN_VALUE / 2;
    }

    /**
     * An ACK of {@code packets} packets with its one RTT sample, given the base RTT. Below target
     * the window grows by each packet acknowledged, not by each ACK, so an ACK answering many (the
     * responder coalesces them) grows it as much as one ACK each would: about a packet per RTT.
     */
    public void onAck(long rtt, long baseRtt, long now, int packets) {
        long target = baseRtt + targetQueueing;
        if (rtt <= target) {
            double w = Math.max(1.0, window);
            // n steps of w += a / w add up to w^2 growing by about 2an: one square root, not n divisions.
            double grown = packets == 1 ? w + additiveIncrease / w : Math.sqrt(w * w + 2 * additiveIncrease * packets);
            window = Math.min(maxWindow, grown);
        } else if (now - lastDecrease >= rtt) {
            double factor = Math.max(1 - beta * (rtt - target) / (double) rtt, 1 - maxDecrease);
            window = Math.max(1.0, window * factor);
            lastDecrease = now;
        }
    }

    /** A retransmission timeout: the path or the receiver is in trouble, halve at once. */
    public void onTimeout(long now) {
        window = Math.max(1.0, window * (1 - maxDecrease));
        lastDecrease = now;
    }

    /** Packets that may be in flight. */
    public int packets() {
        return (int) window;
    }

    public double window() {
        return window;
    }
}
