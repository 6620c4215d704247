package io.srdnic.srd.transport.qp;

/**
 * The IBTA encoding of the RNR NAK timer (a QP's {@code min_rnr_timer}, carried in an RNR NAK): five
 * bits naming how long the requester waits before it sends again to a responder that had no receive
 * posted. The codes are not monotonic in time — 0 is the longest wait, 655.36 ms — and from 1 on
 * roughly double every two steps, from 0.01 ms to 491.52 ms.
 */
public final class RnrTimer {
    /** The largest code: five bits. */
    public static final int MAX_CODE = 31;

    private static final long MICRO = 1_000;

    /** Indexed by code: IBTA's table, in nanoseconds (the spec gives milliseconds to two decimals). */
    private static final long[] NANOS = {
        655_360 * MICRO, 10 * MICRO, 20 * MICRO, 30 * MICRO, 40 * MICRO, 60 * MICRO, 80 * MICRO, 120 * MICRO,
        160 * MICRO, 240 * MICRO, 320 * MICRO, 480 * MICRO, 640 * MICRO, 960 * MICRO, 1_280 * MICRO, 1_920 * MICRO,
        2_560 * MICRO, 3_840 * MICRO, 5_120 * MICRO, 7_680 * MICRO, 10_240 * MICRO, 15_360 * MICRO, 20_480 * MICRO, 30_720 * MICRO,
        40_960 * MICRO, 61_440 * MICRO, 81_920 * MICRO, 122_880 * MICRO, 163_840 * MICRO, 245_760 * MICRO, 327_680 * MICRO,
        491_520 * MICRO,
    };

    private RnrTimer() {
    }

    /** How long RNR NAK timer code {@code code} (0..31) asks the requester to wait, in nanoseconds. */
    public static long nanos(int code) {
        if (code < 0 || code > MAX_CODE) {
            throw new IllegalArgumentException("an RNR timer code is 0..31 (IBTA's five-bit encoding; 0 = 655.36 ms), was " + code);
        }
        return NANOS[code];
    }
}
