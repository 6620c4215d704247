package io.srdnic.verbs;

import io.srdnic.srd.transport.QpType;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/** A protection domain (ibv_pd): owns memory regions, address handles and QPs. */
public final class ProtectionDomain {
    final Context context;
    final AtomicInteger mrs = new AtomicInteger();
    final AtomicInteger ahs = new AtomicInteger();
    final AtomicInteger qps = new AtomicInteger();
    private boolean destroyed;

    ProtectionDomain(Context context) {
        this.context = context;
    }

    /** Registers native memory with {@link Access} flags; heap segments cannot be registered. */
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        checkAlive();
        if (!segment.isNative()) {
            throw new VerbsException("only native memory can be registered (allocate it from an Arena)");
        }
        MemoryRegion mr = context.register(this, segment, access);
        mrs.incrementAndGet();
        return mr;
    }

    /** An address handle for a remote device (its MAC, IPv4 address and SRD UDP port). */
    public AddressHandle createAddressHandle(long mac, int ip, int udpPort) {
        checkAlive();
        int id = context.dataplane.call(() -> context.dataplane.transport.createAddressHandle(mac, ip, udpPort));
        ahs.incrementAndGet();
        return new AddressHandle(this, id, mac, ip, udpPort);
    }

    /** An address handle on the context's default SRD UDP port. */
    public AddressHandle createAddressHandle(long mac, int ip) {
        return createAddressHandle(mac, ip, context.dataplane.transport.config().udpPort());
    }

    /** Creates a QP in RESET. */
    public QueuePair createQueuePair(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr, int maxRecvWr,
                                     int maxSendSge, int maxInlineData) {
        checkAlive();
        // RC's state machine is in place, its data path not yet: this guard goes when it lands (issue 9).
        if (type == QpType.RC) {
            throw new VerbsException("RC queue pairs cannot be created yet: their data path (segmentation, in-order delivery, "
                + "ACK/NAK) is still being built; use QpType.SRD for reliable messages meanwhile");
        }
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
        QueuePair qp = new QueuePair(this, type, sendCq, recvCq, maxSendWr, maxRecvWr, maxSendSge, maxInlineData);
        qps.incrementAndGet();
        return qp;
    }

    /** Deallocates the PD; refused while it still owns anything. */
    public void destroy() {
        if (mrs.get() + ahs.get() + qps.get() > 0) {
            throw new VerbsException("protection domain still has " + qps.get() + " QP(s), " + mrs.get() + " MR(s), "
                + ahs.get() + " AH(s): destroy them first");
        }
        destroyed = true;
    }

    private void checkAlive() {
        if (destroyed) {
            throw new VerbsException("protection domain was destroyed");
        }
    }
}
