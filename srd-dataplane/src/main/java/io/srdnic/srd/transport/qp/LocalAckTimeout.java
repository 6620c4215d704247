package io.srdnic.srd.transport.qp;

/**
 * The IBTA encoding of a QP's local ACK timeout ({@code timeout}, 0..31): how long a requester waits
 * for an acknowledgement before it retransmits, 4.096 µs × 2^timeout; 0 means no timeout at all.
 */
public final class LocalAckTimeout {
    /** The largest code: five bits (4.096 µs × 2^31, about 2.4 hours). */
    public static final int MAX_CODE = 31;
    /** What code 0 maps to: the requester never times out. */
    public static final long INFINITE = Long.MAX_VALUE;

    private static final long BASE_NANOS = 4_096;

    private LocalAckTimeout() {
    }

    /** The timeout code {@code code} names, in nanoseconds; {@link #INFINITE} for 0. */
    public static long nanos(int code) {
        if (code < 0 || code > MAX_CODE) {
            throw new IllegalArgumentException("a local ACK timeout is 0..31 (4.096 us x 2^timeout; 0 = infinite), was " + code);
        }
        return code == 0 ? INFINITE : BASE_NANOS << code;
    }
}
