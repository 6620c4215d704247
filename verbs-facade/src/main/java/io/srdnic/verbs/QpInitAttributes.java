package io.srdnic.verbs;

import io.srdnic.srd.api.QpType;

/**
 * What a QP is created with, in ibv_qp_init_attr's shape: its type, its send and receive CQs, the
 * SRQ it takes its receives from (then it has no receive queue and no max_recv_wr), its caps
 * (max_send_wr, max_recv_wr, max_send_sge, max_inline_data), sq_sig_all, and for the XRC shapes
 * the XRC domain. Made once with {@link #builder}, immutable, and handed to
 * {@link ProtectionDomain#createQueuePair(QpInitAttributes)} (or {@code CmId.createQp}). The
 * device's limits ({@link Context#queryDevice()}) are checked when the QP is created.
 */
public final class QpInitAttributes {
    final QpType type;
    /** XRC_SEND or XRC_RECV (the transport's SRC QP in ibverbs' shape), else null. */
    final XrcQpType xrcType;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final SharedReceiveQueue srq;
    final XrcDomain xrcd;
    final int maxSendWr;
    final int maxRecvWr;
    final int maxSendSge;
    final int maxInlineData;
    final boolean sqSigAll;

    private QpInitAttributes(Builder b) {
        this.type = b.xrcType != null ? QpType.SRC : b.type;
        this.xrcType = b.xrcType;
        this.sendCq = b.sendCq;
        this.recvCq = b.recvCq;
        this.srq = b.srq;
        this.xrcd = b.xrcd;
        this.maxSendWr = b.maxSendWr;
        this.maxRecvWr = b.maxRecvWr;
        this.maxSendSge = b.maxSendSge;
        this.maxInlineData = b.maxInlineData;
        this.sqSigAll = b.sqSigAll;
    }

    /** A QP of {@code type} (SRD, UD or RC; the XRC shapes come from {@link #xrcSend} and {@link #xrcRecv}). */
    public static Builder builder(QpType type) {
        if (type == null || type == QpType.SRC) {
            throw new VerbsException("SRC QPs come in their XRC shape: QpInitAttributes.xrcSend, QpInitAttributes.xrcRecv; was " + type);
        }
        return new Builder(type, null);
    }

    /**
     * An XRC_SEND QP (IBV_QPT_XRC_SEND): a send queue only, completing on {@code sendCq}; its work
     * requests each name the remote XRC SRQ ({@link SendWr#remoteSrqn}).
     */
    public static Builder xrcSend(CompletionQueue sendCq) {
        return new Builder(QpType.SRC, XrcQpType.XRC_SEND).sendCq(sendCq);
    }

    /**
     * An XRC_RECV QP of {@code xrcd} (IBV_QPT_XRC_RECV): no send queue, no receive queue, no CQ of
     * its own; its messages go to the XRC SRQ they name.
     */
    public static Builder xrcRecv(XrcDomain xrcd) {
        if (xrcd == null) {
            throw new VerbsException("an XRC_RECV QP lives in an XRC domain: none given");
        }
        Builder b = new Builder(QpType.SRC, XrcQpType.XRC_RECV);
        b.xrcd = xrcd;
        return b;
    }

    public QpType type() {
        return type;
    }

    public XrcQpType xrcType() {
        return xrcType;
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    public SharedReceiveQueue srq() {
        return srq;
    }

    public XrcDomain xrcDomain() {
        return xrcd;
    }

    public int maxSendWr() {
        return maxSendWr;
    }

    public int maxRecvWr() {
        return maxRecvWr;
    }

    public int maxSendSge() {
        return maxSendSge;
    }

    public int maxInlineData() {
        return maxInlineData;
    }

    /** Every send completes on the send CQ, whatever its work request's SIGNALED flag (ibv_qp_init_attr.sq_sig_all). */
    public boolean sqSigAll() {
        return sqSigAll;
    }

    /** Builds a {@link QpInitAttributes}: caps default to one SGE, no inline data, signaling per work request. */
    public static final class Builder {
        private final QpType type;
        private final XrcQpType xrcType;
        private CompletionQueue sendCq;
        private CompletionQueue recvCq;
        private SharedReceiveQueue srq;
        private XrcDomain xrcd;
        private int maxSendWr;
        private int maxRecvWr;
        private int maxSendSge = 1;
        private int maxInlineData;
        private boolean sqSigAll;

        private Builder(QpType type, XrcQpType xrcType) {
            this.type = type;
            this.xrcType = xrcType;
        }

        public Builder sendCq(CompletionQueue cq) {
            this.sendCq = cq;
            return this;
        }

        public Builder recvCq(CompletionQueue cq) {
            this.recvCq = cq;
            return this;
        }

        /** Send and receive completions on the same CQ. */
        public Builder cq(CompletionQueue cq) {
            return sendCq(cq).recvCq(cq);
        }

        /** The SRQ the QP takes its receives from (it then has no receive queue: no max_recv_wr). */
        public Builder srq(SharedReceiveQueue s) {
            this.srq = s;
            return this;
        }

        public Builder maxSendWr(int n) {
            this.maxSendWr = n;
            return this;
        }

        public Builder maxRecvWr(int n) {
            this.maxRecvWr = n;
            return this;
        }

        public Builder maxSendSge(int n) {
            this.maxSendSge = n;
            return this;
        }

        public Builder maxInlineData(int n) {
            this.maxInlineData = n;
            return this;
        }

        public Builder sqSigAll(boolean all) {
            this.sqSigAll = all;
            return this;
        }

        /** Throws for what no QP of this shape takes; the depths are checked against the device when the QP is created. */
        public QpInitAttributes build() {
            if (xrcType == XrcQpType.XRC_RECV) {
                if (sendCq != null || recvCq != null || srq != null || maxSendWr != 0 || maxRecvWr != 0 || maxInlineData != 0 || sqSigAll) {
                    throw new VerbsException("an XRC_RECV QP has no send queue, receive queue or CQ: give it only its XRC domain");
                }
                return new QpInitAttributes(this);
            }
            if (sendCq == null) {
                throw new VerbsException("a QP needs a send CQ (ibv_qp_init_attr.send_cq)");
            }
            if (xrcType == XrcQpType.XRC_SEND) {
                if (recvCq != null || srq != null || maxRecvWr != 0) {
                    throw new VerbsException("an XRC_SEND QP has a send queue only: no receive CQ, SRQ or max_recv_wr");
                }
                return new QpInitAttributes(this);
            }
            if (recvCq == null) {
                throw new VerbsException("a QP needs a receive CQ (ibv_qp_init_attr.recv_cq)");
            }
            if (srq != null && maxRecvWr != 0) {
                throw new VerbsException("a QP on an SRQ has no receive queue of its own: leave max_recv_wr unset, was " + maxRecvWr);
            }
            return new QpInitAttributes(this);
        }
    }
}
