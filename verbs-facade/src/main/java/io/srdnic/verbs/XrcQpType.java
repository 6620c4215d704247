package io.srdnic.verbs;

/**
 * rdma-core's two XRC queue-pair types (IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV), both carried by the
 * transport's SRC QPs (seed 001): an XRC_SEND QP is an SRC QP used only to send, an XRC_RECV QP one
 * used only to receive, in an {@link XrcDomain}. See docs/src-conformance.md for how SRC and XRC
 * differ.
 */
public enum XrcQpType {
    /**
     * The send side (XRC INI): posts sends, RDMA and atomics, each naming the remote XRC SRQ
     * ({@link SendWr#remoteSrqn}); no receive queue, no SRQ, no XRC domain of its own to name.
     */
    XRC_SEND,
    /**
     * The receive side (XRC TGT): created in an XRC domain, no send queue, no PD, no CQ; the
     * messages that arrive take their receives from the XRC SRQ of the domain each one names and
     * complete on that SRQ's CQ. Any job whose SRQs are in the domain is reached through it.
     */
    XRC_RECV
}
