package io.srdnic.rtrs.link;

import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;

/**
 * How long a path's RC connections keep retrying before they give a silent peer up, set through
 * the connection manager on every connection (the local ACK timeout with {@code rdma_set_ack_timeout}'s
 * shape, retry and RNR retry counts in the connect and accept parameters). A peer is given up after
 * {@code retryCount} retransmissions and not before {@code (retryCount + 1)} ACK timeouts of
 * 4.096 µs × 2^{@code ackTimeout} have passed.
 *
 * <p>Linux's RTRS asks for retry_count 7 and rnr_retry_count 7 and leaves the ACK timeout to the
 * CM, which derives it from the path's packet lifetime (cma's RoCE default 16 or 18, depending on
 * the kernel): on the order of 0.5-2 s per try, so a peer must stay silent for seconds before a
 * path fails. The verbs facade's own default (14: 67 ms, given up after ~0.5 s) is perftest's; a GC
 * pause or a SIGSTOP of the server outlasts it and every path failed at once. {@link #DEFAULT}
 * takes code 18 (1.07 s): given up after ~8.6 s of silence.
 */
public record RcRetry(int ackTimeout, int retryCount, int rnrRetryCount) {
    /** ACK timeout 18 (1.07 s), 7 retries, RNR retries without end: a peer silent for ~8.6 s is given up. */
    public static final RcRetry DEFAULT = new RcRetry(18, 7, 7);

    public RcRetry {
        if (ackTimeout < 1 || ackTimeout > 31) {
            throw new IllegalArgumentException("the RC ACK timeout is a code 1..31 (4.096 us x 2^code), was " + ackTimeout);
        }
        if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7) {
            throw new IllegalArgumentException("RC retry and RNR retry counts are 0..7, were " + retryCount + " and " + rnrRetryCount);
        }
    }

    /** The shortest silence, in nanoseconds, after which a connection gives its peer up. */
    public long giveUpNanos() {
        return (4_096L << ackTimeout) * (retryCount + 1);
    }

    /** Sets the ACK timeout on {@code id} (before connect or accept) and the counts on {@code param}; returns {@code param}. */
    public ConnParam apply(CmId id, ConnParam param) {
        id.setAckTimeout(ackTimeout);
        return param.retryCount(retryCount).rnrRetryCount(rnrRetryCount);
    }
}
