package io.srdnic.srd.transport.engine;

/**
 * Delay-based congestion window of one context, in the spirit of Swift: the target is the base RTT
 * plus a queueing-delay budget. Below target the window grows additively (about one packet per
 * RTT); above it, it shrinks at most once per RTT, multiplicatively by how far the delay exceeds
 * the target. So an incast of many contexts keeps the bottleneck queue near the budget.
 * <p>
 * The budget follows what the flow measures rather than a constant alone: it is at least
 * {@link #SERVICE_PACKETS} of the packets' own service time (the spacing of their ACKs while the
 * pipe is full: on a slow link, or a busy host, one packet waiting behind another already takes
 * longer than a fixed budget, and a target below it would hold the window at one packet) and a
 * fraction of the base RTT (a long path's base RTT carries its hosts' own scheduling noise, which
 * a target of a few microseconds would read as congestion on every sample).
 */
public final class DelayWindow {
    /** Packets' worth of service time the target always allows to queue. */
    static final int SERVICE_PACKETS = 2;
    /** The target allows at least base RTT / this of queueing. */
    static final int BASE_RTT_DIVISOR = 2;
    private final double maxWindow;
    private final double additiveIncrease;
    private final double beta;
    private final double maxDecrease;
    private final long targetQueueing;
    private final double initial;
    private double window;
    private long lastDecrease;
    /** The smoothed time the bottleneck takes per packet of this flow, from the ACKs' spacing; 0 before a measurement. */
    private long serviceTime;

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
        serviceTime = 0;
    }

    /** The RTT below which the window grows, for a flow whose base RTT is {@code baseRtt}. */
    public long target(long baseRtt) {
        return baseRtt + Math.max(targetQueueing, Math.max(SERVICE_PACKETS * serviceTime, baseRtt / BASE_RTT_DIVISOR));
    }

    /**
     * {@code interval} passed between two ACKs, the later acknowledging {@code packets} while more
     * stayed in flight behind them: the pipe was busy, so the spacing is the packets' service time.
     */
    public void onAckSpacing(long interval, int packets) {
        long perPacket = interval / Math.max(1, packets);
        serviceTime = serviceTime == 0 ? perPacket : serviceTime + (perPacket - serviceTime) / 8;
    }

    public long serviceTime() {
        return serviceTime;
    }

    /**
     * An ACK of {@code packets} packets with its one RTT sample, given the base RTT. Below target
     * the window grows by each packet acknowledged, not by each ACK, so an ACK answering many (the
     * responder coalesces them) grows it as much as one ACK each would: about a packet per RTT.
     */
    public void onAck(long rtt, long baseRtt, long now, int packets) {
        long target = target(baseRtt);
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

    /**
     * The reductions since the window was {@code before} were for losses that were not (RFC 3522's
     * undo): back to it, never above it, and never below where it is now.
     */
    public void restore(double before) {
        window = Math.max(window, Math.min(before, maxWindow));
    }

    /** Packets that may be in flight. */
    public int packets() {
        return (int) window;
    }

    public double window() {
        return window;
    }
}
