package io.srdnic.verbs;

import io.srdnic.srd.api.QpType;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** A protection domain (ibv_pd): owns memory regions, address handles, shared receive queues and QPs. */
public final class ProtectionDomain {
    final Context context;
    /** The transport's number for this domain: RDMA to a QP may name only regions of the QP's domain. */
    final int id;
    final AtomicInteger mrs = new AtomicInteger();
    final AtomicInteger ahs = new AtomicInteger();
    final AtomicInteger qps = new AtomicInteger();
    final AtomicInteger srqs = new AtomicInteger();
    private boolean destroyed;

    ProtectionDomain(Context context, int id) {
        this.context = context;
        this.id = id;
    }

    /** Registers native memory with {@link Access} flags; heap segments cannot be registered. */
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        checkAlive();
        if (!segment.isNative()) {
            throw new VerbsException("only native memory can be registered (allocate it from an Arena)");
        }
        return registerMemoryAt(segment, segment.address(), access);
    }

    /**
     * As {@link #registerMemory}, with the region's first byte at virtual address {@code iova} for
     * RDMA (ibv_reg_mr_iova): peers name [{@code iova}, {@code iova} + size). What a dataplane uses
     * for memory another process maps too, which that process advertises by its own mapping's address.
     */
    public MemoryRegion registerMemoryAt(MemorySegment segment, long iova, int access) {
        checkAlive();
        if (!segment.isNative()) {
            throw new VerbsException("only native memory can be registered (allocate it from an Arena)");
        }
        MemoryRegion mr = context.register(this, segment, iova, access);
        mrs.incrementAndGet();
        return mr;
    }

    /**
     * {@code size} bytes of memory, registered with {@link Access} flags: from the shared pool on an
     * attached context (the only memory the dataplane process can reach), else from an arena that
     * lives as long as the context. What an application that runs both ways should allocate its buffers with.
     */
    public MemoryRegion allocateRegion(long size, int access) {
        checkAlive();
        if (size <= 0) {
            throw new VerbsException("a region needs at least one byte, asked " + size);
        }
        MemorySegment segment = context.provider.allocate(size);
        return registerMemory(segment, access);
    }

    /** An address handle for a remote device (its MAC, IPv4 address and SRD UDP port). */
    public AddressHandle createAddressHandle(long mac, int ip, int udpPort) {
        checkAlive();
        int id = context.provider.createAh(this.id, mac, ip, udpPort);
        ahs.incrementAndGet();
        return new AddressHandle(this, id, mac, ip, udpPort);
    }

    /** An address handle on the context's default SRD UDP port. */
    public AddressHandle createAddressHandle(long mac, int ip) {
        return createAddressHandle(mac, ip, context.udpPort());
    }

    /**
     * Creates a QP in RESET as {@code init} says (ibv_create_qp with an ibv_qp_init_attr): SRD, UD or
     * RC with its own receive queue or on an SRQ, or the XRC shapes. A QP on an SRQ has no receive
     * queue of its own; the SRQ may be another PD's of the same context (its receives were checked
     * against its own PD when posted). An XRC_RECV QP belongs to its XRC domain, not to this PD (as
     * in rdma-core): it is made as {@link XrcDomain#createRecvQueuePair()} makes it. Caps beyond the
     * device's ({@link Context#queryDevice()}) are refused.
     */
    public QueuePair createQueuePair(QpInitAttributes init) {
        if (init.xrcType == XrcQpType.XRC_RECV) {
            if (init.xrcd.context != context) {
                throw new VerbsException("the XRC domain belongs to another device context than this protection domain");
            }
            return init.xrcd.createRecvQueuePair();
        }
        if (init.srq != null) {
            init.srq.checkAlive();
            if (init.srq.context != context) {
                throw new VerbsException("the SRQ belongs to another device context than this protection domain");
            }
        }
        checkQueuePair(init.maxSendWr, init.srq != null || init.xrcType != null ? 1 : init.maxRecvWr, init.maxSendSge, init.maxInlineData);
        QueuePair qp = new QueuePair(this, init, false);
        qps.incrementAndGet();
        return qp;
    }

    /**
     * Creates the device's management QP in RESET: UD at the well-known number
     * {@link io.srdnic.srd.transport.device.TransportDevice#MANAGEMENT_QPN} (InfiniBand's QP1), which a peer
     * addresses without being told it. The connection manager ({@code io.srdnic.verbs.cm}) makes it;
     * one per context, a second is refused while the first lives.
     */
    public QueuePair createManagementQueuePair(CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr, int maxRecvWr) {
        checkAlive();
        context.notAttached("management QPs (the dataplane owns each port's, and serves the connection manager on it)");
        QueuePair qp;
        try {
            qp = new QueuePair(this, QpInitAttributes.builder(QpType.UD).sendCq(sendCq).recvCq(recvCq).maxSendWr(maxSendWr)
                .maxRecvWr(maxRecvWr).build(), true);
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new VerbsException(e.getMessage());
        }
        qps.incrementAndGet();
        return qp;
    }

    private void checkQueuePair(int maxSendWr, int maxRecvWr, int maxSendSge, int maxInlineData) {
        checkAlive();
        DeviceAttributes caps = context.queryDevice();
        if (maxSendWr < 1 || maxRecvWr < 1 || maxSendWr > caps.maxQpWr() || maxRecvWr > caps.maxQpWr()) {
            throw new VerbsException("queue depths must be 1.." + caps.maxQpWr() + ", asked " + maxSendWr + "/" + maxRecvWr);
        }
        if (maxSendSge < 1 || maxSendSge > caps.maxSge()) {
            throw new VerbsException("max_send_sge must be 1.." + caps.maxSge());
        }
        if (maxInlineData < 0 || maxInlineData > caps.maxInlineData()) {
            throw new VerbsException("max_inline_data must be 0.." + caps.maxInlineData());
        }
    }

    /**
     * A shared receive queue (ibv_create_srq) of {@code maxWr} receives of {@code maxSge} SGEs (1:
     * the transport delivers a message into one buffer); {@code limit} > 0 arms its limit event at
     * once, as a later {@link SharedReceiveQueue#modify} would.
     */
    public SharedReceiveQueue createSrq(int maxWr, int maxSge, int limit) {
        return newSrq(maxWr, maxSge, limit, () -> new SharedReceiveQueue(this, maxWr, maxSge, limit));
    }

    /**
     * An XRC SRQ (ibv_create_srq_ex with IBV_SRQT_XRC, this PD, {@code xrcd} and {@code cq}): the
     * transport's SRC SRQ. XRC_RECV QPs of {@code xrcd} deliver into it the messages that name its
     * {@link SharedReceiveQueue#srqNumber()}, complete them on {@code cq}, and check their RDMA and
     * atomics against this PD's regions.
     */
    public SharedReceiveQueue createXrcSrq(XrcDomain xrcd, CompletionQueue cq, int maxWr, int maxSge, int limit) {
        xrcd.checkOpen();
        if (xrcd.context != context || cq.context != context) {
            throw new VerbsException("the XRC domain and the CQ must belong to this protection domain's context");
        }
        try {
            return newSrq(maxWr, maxSge, limit, () -> new SharedReceiveQueue(this, xrcd, cq, maxWr, maxSge, limit));
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new VerbsException(e.getMessage());
        }
    }

    private SharedReceiveQueue newSrq(int maxWr, int maxSge, int limit, Supplier<SharedReceiveQueue> create) {
        checkAlive();
        DeviceAttributes caps = context.queryDevice();
        if (maxWr < 1 || maxWr > caps.maxSrqWr()) {
            throw new VerbsException("an SRQ's max_wr must be 1.." + caps.maxSrqWr() + ", asked " + maxWr);
        }
        if (maxSge < 1 || maxSge > caps.maxSrqSge()) {
            throw new VerbsException("an SRQ's max_sge must be 1.." + caps.maxSrqSge()
                    + " (a message lands in one buffer), asked " + maxSge);
        }
        if (limit < 0 || limit > maxWr) {
            throw new VerbsException("srq_limit must be 0 (disarmed) .. max_wr " + maxWr + ", asked " + limit);
        }
        context.srqCreated();
        try {
            SharedReceiveQueue srq = create.get();
            srqs.incrementAndGet();
            return srq;
        } catch (RuntimeException e) {
            context.srqDestroyed();
            throw e;
        }
    }

    /**
     * Throws unless a receive's SGE lies inside a memory region of this PD that the dataplane may
     * write (LOCAL_WRITE): checked when it is posted, to a QP or to an SRQ.
     */
    void checkReceiveBuffer(Sge s) {
        MemoryRegion mr = context.region(s.lkey);
        if (mr == null || mr.pd != this || s.segment == null || !mr.covers(s.segment, s.offset, s.length)) {
            throw new VerbsException("receive SGE is not inside a memory region of this PD with lkey " + Integer.toHexString(s.lkey));
        }
        if ((mr.access & Access.LOCAL_WRITE) == 0) {
            throw new VerbsException("a receive buffer's region needs Access.LOCAL_WRITE");
        }
    }

    /** Deallocates the PD; refused while it still owns anything. */
    public void destroy() {
        if (mrs.get() + ahs.get() + qps.get() + srqs.get() > 0) {
            throw new VerbsException("EBUSY: protection domain still has " + qps.get() + " QP(s), " + srqs.get() + " SRQ(s), " + mrs.get()
                + " MR(s), " + ahs.get() + " AH(s): destroy them first");
        }
        if (!destroyed) {
            context.provider.destroyPd(id);
        }
        destroyed = true;
    }

    private void checkAlive() {
        if (destroyed) {
            throw new VerbsException("protection domain was destroyed");
        }
    }
}
