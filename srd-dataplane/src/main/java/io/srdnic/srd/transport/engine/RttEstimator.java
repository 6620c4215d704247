package io.srdnic.srd.transport.engine;

/**
 * Smoothed RTT and variance (RFC 6298) in nanoseconds, and the retransmission timeout derived from
 * them with exponential backoff. Samples come from echoed timestamps, so retransmissions give
 * unambiguous samples too (no Karn's rule needed).
 */
public final class RttEstimator {
    private final long rtoInitial;
    private final long rtoMin;
    private final long rtoMax;
    private long srtt;
    private long rttvar;
    private long minRtt = Long.MAX_VALUE;
    private long rto;
    private int backoff;

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
    }

    public void sample(long rtt) {
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
        rto = Math.clamp(srtt + Math.max(4 * rttvar, 1_000), rtoMin, rtoMax);
        backoff = 0;
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
