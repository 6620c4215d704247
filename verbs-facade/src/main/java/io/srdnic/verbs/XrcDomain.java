package io.srdnic.verbs;

import io.srdnic.srd.transport.SrcDomain;

/**
 * An XRC domain (ibv_xrcd, from {@link Context#openXrcDomain()}): the transport's SRC domain. Its
 * XRC SRQs ({@link ProtectionDomain#createXrcSrq}) and XRC_RECV QPs ({@link #createRecvQueuePair})
 * reach each other; a message naming an SRQ of another domain is refused. {@link #close()} is
 * refused while an SRQ or QP uses it, as ibv_close_xrcd is.
 */
public final class XrcDomain {
    final Context context;
    /** The transport's domain; null attached (the dataplane's, named by {@link #handle}). */
    final SrcDomain domain;
    /** Attached: the dataplane's handle of the domain, and its number; else 0 and the domain's. */
    final int handle;
    private final int number;
    /** Owns the domain's XRC_RECV QPs on this side (rdma-core gives them no PD: their messages use their SRQ's). */
    private final ProtectionDomain owner;
    private volatile boolean closed;

    XrcDomain(Context context) {
        this.context = context;
        if (context.session != null) {
            io.srdnic.verbs.attach.control.HandleReply r = context.session.request(new io.srdnic.verbs.attach.control.OpenXrcdRequest());
            this.domain = null;
            this.handle = r.handle();
            this.number = r.state();
        } else {
            this.domain = context.dataplane.call(context.dataplane.transport::createSrcDomain);
            this.handle = 0;
            this.number = domain.number();
        }
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
        QueuePair qp = new QueuePair(owner, XrcQpType.XRC_RECV, this, null, 1, 1, 0);
        owner.qps.incrementAndGet();
        return qp;
    }

    /** The domain's number on its device. */
    public int number() {
        return number;
    }

    /** Closes the domain (ibv_close_xrcd); refused while an XRC SRQ or XRC_RECV QP still uses it. */
    public void close() {
        checkOpen();
        if (context.session != null) {
            context.session.request(new io.srdnic.verbs.attach.control.DestroyRequest(io.srdnic.verbs.attach.control.DestroyRequest.XRCD,
                handle));
        } else {
            try {
                context.dataplane.call(() -> {
                    domain.destroy();
                    return null;
                });
            } catch (IllegalStateException e) {
                throw new VerbsException(e.getMessage());
            }
        }
        closed = true;
        owner.destroy();
    }

    void checkOpen() {
        if (closed) {
            throw new VerbsException("XRC domain was closed");
        }
    }
}
