package io.srdnic.srd.transport.qp;

/**
 * An SRC domain as the QP room sees it: the domain that an SRC QP or an SRC SRQ belongs to, told
 * when one of them goes away. The domain itself is SRC's ({@code SrcDomain}); QPs and SRQs compare
 * theirs by identity.
 */
public interface SrcMembership {
    /** An SRC QP of this domain was destroyed. */
    void detachQp();

    /** An SRC SRQ of this domain was destroyed. */
    void detachSrq();
}
