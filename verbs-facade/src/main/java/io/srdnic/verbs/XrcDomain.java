package io.srdnic.verbs;

/**
 * An XRC domain (ibv_xrcd, from {@link Context#openXrcDomain()}): the transport's SRC domain. Its
 * XRC SRQs ({@link ProtectionDomain#createXrcSrq}) and XRC_RECV QPs ({@link #createRecvQueuePair})
 * reach each other; a message naming an SRQ of another domain is refused. {@link #close()} is
 * refused while an SRQ or QP uses it, as ibv_close_xrcd is.
 */
public final class XrcDomain {
    final Context context;
    /** The provider's domain: the transport's SRC domain, or the dataplane process's handle of it. */
    final VerbsProvider.Xrcd ops;
    /** Owns the domain's XRC_RECV QPs on this side (rdma-core gives them no PD: their messages use their SRQ's). */
    private final ProtectionDomain owner;
    private volatile boolean closed;

    XrcDomain(Context context) {
        this.context = context;
        this.ops = context.provider.openXrcd();
        this.owner = context.allocPd();
    }

    /**
     * An XRC_RECV QP in RESET (ibv_create_qp_ex with IBV_QPT_XRC_RECV and this domain): no send
     * queue, no receive queue, no CQ of its own. Connect it as an RC QP to the peer's XRC_SEND QP;
     * its moves take what XRC TGT's do (RTR → RTS needs only timeout and sqPsn: the facade fills
     * the send-side attributes it never uses).
     */
    public QueuePair createRecvQueuePair() {
        checkOpen();
        QueuePair qp = new QueuePair(owner, QpInitAttributes.xrcRecv(this).build(), false);
        owner.qps.incrementAndGet();
        return qp;
    }

    /** The domain's number on its device. */
    public int number() {
        return ops.number();
    }

    /** Closes the domain (ibv_close_xrcd); refused while an XRC SRQ or XRC_RECV QP still uses it. */
    public void close() {
        checkOpen();
        ops.close();
        closed = true;
        owner.destroy();
    }

    void checkOpen() {
        if (closed) {
            throw new VerbsException("XRC domain was closed");
        }
    }
}
