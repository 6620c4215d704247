package io.srdnic.srd.transport.device;

import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.rc.SrcDomain;

/**
 * What the transport creates a QP with, in ibv_qp_init_attr's shape: its type, protection domain,
 * send and receive queue depths, send and receive CQs, and either the SRQ it takes its receives
 * from or (SRC) the SRC domain it belongs to: what {@link TransportDevice#createQp(TransportQpAttributes)},
 * the one creation entry point, takes; the facade's {@code QpInitAttributes} maps to it. Made on the
 * control path (a QP's creation), filled with its setters; what a QP type does not take stays unset.
 */
public final class TransportQpAttributes {
    final QpType type;
    int pd;
    int sqDepth = 1;
    int rqDepth = 1;
    CompletionQueue sendCq;
    CompletionQueue recvCq;
    SharedReceiveQueue srq;
    SrcDomain srcDomain;

    /** A QP of {@code type}, in protection domain 0, with one-entry queues until set otherwise. */
    public TransportQpAttributes(QpType type) {
        if (type == null) {
            throw new IllegalArgumentException("a QP needs a type");
        }
        this.type = type;
    }

    /** The protection domain whose regions RDMA requests to the QP may name. */
    public TransportQpAttributes pd(int pd) {
        this.pd = pd;
        return this;
    }

    /** The send queue's depth (max_send_wr). */
    public TransportQpAttributes sqDepth(int sqDepth) {
        this.sqDepth = sqDepth;
        return this;
    }

    /** The receive queue's depth (max_recv_wr); not for a QP with an SRQ or an SRC QP. */
    public TransportQpAttributes rqDepth(int rqDepth) {
        this.rqDepth = rqDepth;
        return this;
    }

    /** The CQ the QP's sends complete on. */
    public TransportQpAttributes sendCq(CompletionQueue sendCq) {
        this.sendCq = sendCq;
        return this;
    }

    /** The CQ the QP's receives complete on (an SRC QP has none). */
    public TransportQpAttributes recvCq(CompletionQueue recvCq) {
        this.recvCq = recvCq;
        return this;
    }

    /** The shared receive queue the QP takes its receives from (then it has no receive queue of its own); not for SRC. */
    public TransportQpAttributes srq(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    /** SRC only, and required there: the SRC domain the QP belongs to (its messages name an SRQ of that domain). */
    public TransportQpAttributes srcDomain(SrcDomain srcDomain) {
        this.srcDomain = srcDomain;
        return this;
    }
}
