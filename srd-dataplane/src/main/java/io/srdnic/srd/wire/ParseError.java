package io.srdnic.srd.wire;

/** Why a received frame was not accepted as an SRD packet; each is counted, none throws. */
public enum ParseError {
    /** Shorter than the headers it claims, or than Ethernet + IPv4 + UDP + SRD. */
    TRUNCATED,
    /** Spread over several mbuf segments: SRD pools hold whole frames, so this is not ours. */
    CHAINED,
    /** Not IPv4 (EtherType), or IPv4 with options. */
    NOT_IPV4,
    /** An IPv4 fragment: SRD never fragments. */
    FRAGMENT,
    /** Not UDP, or not to the SRD port. */
    NOT_SRD_PORT,
    BAD_IP_CHECKSUM,
    BAD_UDP_CHECKSUM,
    /** IPv4 total length, UDP length and SRD payload length disagree with each other or the frame. */
    BAD_LENGTH,
    /** An SRD version this implementation does not speak. */
    WRONG_VERSION,
    UNKNOWN_TYPE,
    /** A payload longer than the SRD MTU, or more drop entries than an ACK may carry. */
    OVERSIZED,
    /** A field outside its range: a drop reason that does not exist, a QPN over 24 bits. */
    OUT_OF_RANGE;

    public static final ParseError[] VALUES = values();
}
