package io.srdnic.srd.wire;

/** UDP ports of SRD: the destination port that names it, and the source ports that carry path entropy. */
public final class SrdPort {
    /** Default UDP destination port (placeholder until checked against tshark). */
    public static final int DEFAULT = 17001;
    /** Entropy i rides UDP source port ENTROPY_BASE + i (the dynamic range 49152–65535). */
    public static final int ENTROPY_BASE = 49152;
    public static final int ENTROPY_COUNT = 16384;

    private SrdPort() {
    }
}
