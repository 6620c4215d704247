package io.srdnic.srd.transport.engine;

/**
 * Smoothed RTT and variance (RFC 6298) in nanoseconds, and the retransmission timeout derived from
 * them with exponential backoff. Samples come from echoed timestamps, so retransmissions give
 * unambiguous samples too (no Karn's rule needed).
 * <p>
 * The RTO has a second floor besides the configured one: the longest RTT sample, or silence of
 * the ACK stream with packets outstanding ({@link #noteSilence}), of the last second or so, a
 * maximum that halves every {@link #STALL_HALF_LIFE} since it was set. A host that stalls (a
 * descheduled process, a preempted vCPU, a GC pause) shows it as a silence as long as the stall;
 * with the floor above it, the next stall of that length waits instead of sending every packet in
 * flight again, and a host that stops stalling gets its short RTO back within seconds.
 */
public final class RttEstimator {
    /** How fast the stall floor forgets: it halves every this long. */
    static final long STALL_HALF_LIFE = 500_000_000L;
    private final long rtoInitial;
    private final long rtoMin;
    private final long rtoMax;
    private long srtt;
    private long rttvar;
    private long minRtt = Long.MAX_VALUE;
    private long rto;
    private int backoff;
    /** The longest sample recently, as set at {@link #stallFloorAt}; it decays by halving from there. */
    private long stallFloor;
    private long stallFloorAt;

    public RttEstimator(long rtoInitial, long rtoMin, long rtoMax) {
        this.rtoInitial = rtoInitial;
        this.rtoMin = rtoMin;
        this.rtoMax = rtoMax;
        reset();
    }

    /** Forgets every sample: a new remote starts from the initial RTO. */
    public void reset() {
        srtt = 0;
        rttvar = 0;
        minRtt = Long.MAX_VALUE;
        rto = rtoInitial;
        backoff = 0;
        stallFloor = 0;
        stallFloorAt = 0;
    }

    /** An RTT sample taken at {@code now}. */
    public void sample(long rtt, long now) {
        if (rtt <= 0) {
            rtt = 1;
        }
        if (srtt == 0) {
            srtt = rtt;
            rttvar = rtt / 2;
        } else {
            long err = rtt - srtt;
            srtt += err / 8;
            rttvar += (Math.abs(err) - rttvar) / 4;
        }
        minRtt = Math.min(minRtt, rtt);
        long floor = stallFloor(now);
        if (rtt >= floor) {
            stallFloor = rtt;
            stallFloorAt = now;
            floor = rtt;
        }
        rto = Math.clamp(Math.max(srtt + Math.max(4 * rttvar, 1_000), floor), rtoMin, rtoMax);
        backoff = 0;
    }

    /**
     * Packets were outstanding for {@code silence} with no ACK, up to {@code now}: a stall of the
     * peer (or of this host's own reading) at least that long. Raises the floor the next sample's
     * RTO is kept above: an RTT sample alone may not show it, when the ACK that ends the silence
     * echoes a retransmission sent during it.
     */
    public void noteSilence(long silence, long now) {
        if (silence > 0 && silence >= stallFloor(now)) {
            stallFloor = silence;
            stallFloorAt = now;
        }
    }

    /** The longest recent sample, decayed to {@code now}: halved for every half-life since it was seen. */
    public long stallFloor(long now) {
        long age = now - stallFloorAt;
        if (age <= 0 || stallFloor == 0) {
            return stallFloor;
        }
        long halvings = age / STALL_HALF_LIFE;
        return halvings >= 63 ? 0 : stallFloor >>> halvings;
    }

    /** The timeout for the next expiry, backoff included. */
    public long rto() {
        return Math.min(rtoMax, rto << Math.min(backoff, 20));
    }

    public void backOff() {
        if (rto() < rtoMax) {
            backoff++;
        }
    }

    /** How many times the RTO has doubled since the last sample. */
    public int backoff() {
        return backoff;
    }

    /** Takes back the doublings since {@code before} was read: the timeouts that caused them were spurious (RFC 4015). */
    public void undoBackoff(int before) {
        backoff = Math.min(backoff, Math.max(0, before));
    }

    public long srtt() {
        return srtt;
    }

    public long rttvar() {
        return rttvar;
    }

    /** The smallest RTT seen: the base RTT, without queueing. 0 before the first sample. */
    public long minRtt() {
        return minRtt == Long.MAX_VALUE ? 0 : minRtt;
    }
}
