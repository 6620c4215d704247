package io.srdnic.verbs;

/** What kind of shared receive queue (ibv_srq_type): a basic one QPs are created on, or an XRC one reached by its number. */
public enum SrqType {
    /** IBV_SRQT_BASIC: the QPs created on it take their receives from it. */
    BASIC,
    /**
     * IBV_SRQT_XRC: in an XRC domain, with a CQ of its own; XRC_RECV QPs of its domain deliver into
     * it the messages that name its {@link SharedReceiveQueue#srqNumber()}.
     */
    XRC
}
