package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.transport.SrdConfig;
import io.srdnic.srd.transport.SrdTransport;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * An open device (ibv_context) with its embedded dataplane. Open one per device; close it to stop
 * its loop, close the port and pool it owns, and release everything. EAL, when DPDK is used, stays
 * up for the process (other contexts may share it) and is cleaned up once at shutdown.
 */
public final class Context implements AutoCloseable {
    static final int MAX_QP = 1024;
    static final int MAX_CQ = 1024;
    static final int MAX_MR = 1 << 16;
    static final int MAX_AH = 65535;
    static final int MAX_QP_WR = 8192;
    /** At most one SRQ per QP is of use. */
    static final int MAX_SRQ = MAX_QP;
    static final int MAX_SGE = 8;
    static final int MAX_INLINE = 256;

    final Device device;
    /** The embedded dataplane; null when attached. */
    final Dataplane dataplane;
    /** The link to a {@code srdnic dataplane} process when the device is attached; else null. */
    final AttachedSession session;
    private final int mtu;
    private final SplittableRandom keys;
    private volatile MemoryRegion[] regions = new MemoryRegion[64];
    private int regionCount;
    /** QPs by their slot in the transport's QP table ({@code qpn & qpIndexMask}); the entry's own number must match. */
    private volatile QueuePair[] qpsByNumber;
    private final int qpIndexMask;
    private int cqs;
    private int pdCount;
    private int srqs;
    private boolean closed;
    private final java.util.List<Runnable> closeHooks = new java.util.ArrayList<>();
    /** Memory of {@link ProtectionDomain#allocateRegion} on an embedded context: freed with the context. */
    private java.lang.foreign.Arena arena;

    private Context(Device device, ContextConfig config) {
        this.device = device;
        if (device.attachDir != null) {
            this.session = AttachedSession.open(device.attachDir, config.attachedPort, config.attachedPoolBytes, config.attachedRingBytes);
            this.dataplane = null;
            this.keys = null;
            this.mtu = session.info.attributes()[7];
            this.qpIndexMask = 0;
            this.qpsByNumber = new QueuePair[1];
            return;
        }
        this.session = null;
        SrdConfig srd = config.srd.copy().localIp(device.simIp != 0 ? device.simIp : config.ip).maxQps(MAX_QP);
        SplittableRandom r = new SplittableRandom(config.epochSeed);
        int epoch = SrdTransport.newEpoch(); // later than any earlier start's: peers tell a restart from a stale packet
        long psnSeed = r.nextLong();
        this.keys = r.split();
        this.dataplane = new Dataplane(() -> new SrdTransport(device.io, srd, epoch, psnSeed), config.mode, config.cpu,
            config.busySpin, device.clock, device.world, device.name, DataplaneCounters.opener(config, device.name));
        this.mtu = dataplane.transport.mtu();
        this.qpIndexMask = dataplane.transport.qpIndexMask();
        this.qpsByNumber = new QueuePair[qpIndexMask + 1];
    }

    /** Opens {@code device}: creates the transport and starts the dataplane in the configured mode. */
    public static Context open(Device device, ContextConfig config) {
        return new Context(device, config);
    }

    public static Context open(Device device) {
        return open(device, new ContextConfig());
    }

    /** The device's capabilities, honestly. */
    public DeviceAttributes queryDevice() {
        if (session != null) {
            int[] a = session.info.attributes();
            return new DeviceAttributes(session.info.deviceName(), a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10] != 0,
                a[11] != 0, a[12] != 0, a[13], a[14], a[15], a[16], a[17]);
        }
        return new DeviceAttributes(device.name, MAX_QP, MAX_CQ, MAX_MR, MAX_AH, MAX_QP_WR, MAX_SGE, MAX_INLINE, mtu, mtu,
            dataplane.transport.maxRdmaSize(), true, true, true, MAX_SRQ, MAX_QP_WR, io.srdnic.srd.transport.SharedReceiveQueue.MAX_SGE,
            DeviceAttributes.ATOMIC_GLOB, io.srdnic.srd.transport.QpAttributes.RD_ATOMIC_LIMIT);
    }

    public int mtu() {
        return mtu;
    }

    /** This device's IPv4 address and MAC, for the peer's address handle. */
    public int ip() {
        if (session != null) {
            return session.info.ip();
        }
        return dataplane.transport.localIp();
    }

    public long mac() {
        if (session != null) {
            return session.info.mac();
        }
        return dataplane.transport.localMac();
    }

    /** The SRD UDP port this device listens on. */
    public int udpPort() {
        if (session != null) {
            return session.info.udpPort();
        }
        return dataplane.transport.config().udpPort();
    }

    public ProtectionDomain allocPd() {
        checkOpen();
        if (session != null) {
            return new ProtectionDomain(this, session.request(new io.srdnic.verbs.attach.control.AllocPdRequest()).handle());
        }
        return new ProtectionDomain(this, ++pdCount);
    }

    /**
     * Opens an XRC domain (ibv_open_xrcd): the transport's SRC domain (seed 001), in which XRC SRQs
     * and XRC_RECV QPs reach each other.
     */
    public XrcDomain openXrcDomain() {
        checkOpen();
        return new XrcDomain(this);
    }

    public synchronized CompletionQueue createCq(int depth) {
        checkOpen();
        if (depth < 1 || depth > (1 << 20)) {
            throw new VerbsException("CQ depth must be 1..1M, was " + depth);
        }
        if (cqs >= MAX_CQ) {
            throw new VerbsException("at most " + MAX_CQ + " CQs per context");
        }
        CompletionQueue cq = new CompletionQueue(this, depth); // counted once made: a refused create (attached: the dataplane's ERROR) leaks no slot
        cqs++;
        return cq;
    }

    /** The next async event (REMOTE_UNRESPONSIVE, CQ_ERROR, QP_FATAL, SRQ_LIMIT_REACHED, SQ_DRAINED), or null. Runs the duty cycle in INVOKER mode. */
    public AsyncEventQueue.AsyncEvent pollAsyncEvent() {
        if (session != null) {
            return session.pollEvent();
        }
        dataplane.progress();
        return dataplane.pollEvent();
    }

    /** Waits up to {@code timeout} (context clock: virtual on a simulator) for an async event. */
    public AsyncEventQueue.AsyncEvent awaitAsyncEvent(long timeout, TimeUnit unit) {
        long deadline = now() + unit.toNanos(timeout);
        int spins = 0;
        AsyncEventQueue.AsyncEvent e;
        while ((e = pollAsyncEvent()) == null && now() - deadline < 0) {
            idle(spins++);
        }
        return e;
    }

    /** Waits a little for the dataplane (DEDICATED, attached) or makes progress itself (INVOKER). */
    void idle(int spins) {
        if (dataplane != null) {
            dataplane.idle(spins);
        } else {
            Backoff.idle(spins, false, 1_000);
        }
    }

    /** Runs one duty cycle (INVOKER mode; DEDICATED runs by itself). Returns the work done. */
    public int progress() {
        if (session != null) {
            session.checkAlive(); // the dataplane process runs the duty cycle
            return 0;
        }
        return dataplane.progress();
    }

    /** A snapshot of the transport's counters (packets, retransmits, drops by reason, ...). */
    public Map<String, Long> counters() {
        if (session != null) {
            return Map.of(); // the dataplane's own counters are its to show (srdnic stat)
        }
        return dataplane.call(() -> dataplane.transport.counters().snapshot());
    }

    /** The file this context publishes its live counters in (ContextConfig.countersDir), or null. */
    public java.nio.file.Path countersFile() {
        return dataplane.countersFile();
    }

    /** Per-context and per-path lines (RTT, window, losses), as {@code srdnic perf --stats} prints them. */
    public java.util.List<String> contextReport() {
        if (session != null) {
            return java.util.List.of();
        }
        return dataplane.call(dataplane.transport::contextReport);
    }

    /** The context's clock in nanoseconds: virtual on a simulator, where waiting means letting the world run. */
    public long now() {
        return device.clock.getAsLong();
    }

    /** How the dataplane runs: INVOKER when the application's calls drive it (always on a simulator). */
    public ThreadingMode threadingMode() {
        return session != null ? ThreadingMode.DEDICATED : dataplane.mode;
    }

    /**
     * Attached: the dataplane is gone and every event it sent is queued (its reader thread has
     * stopped); embedded: closed. What a CM waits for before it tells its ids DEVICE_REMOVAL.
     */
    public boolean deviceEventsEnded() {
        return isClosed() || (session != null && session.eventsEnded());
    }

    /** Whether the device is gone for everything made on this context: it was closed, or (attached) its dataplane died. */
    public boolean isDeviceGone() {
        return isClosed() || (session != null && session.isDead());
    }

    /** Whether the context was closed (its device is gone for everything made on it). */
    public synchronized boolean isClosed() {
        return closed;
    }

    synchronized MemoryRegion register(ProtectionDomain pd, MemorySegment segment, long iova, int access) {
        checkOpen();
        if (regionCount == MAX_MR) {
            throw new VerbsException("at most " + MAX_MR + " memory regions per context");
        }
        // The transport's key (a registration serial, never reused for 2^25 - 1 registrations, and a
        // random tag, so a stale or made-up key is caught) is the lkey and the rkey: its responder
        // checks every RDMA request against the same table.
        int key = session != null ? registerAttached(pd, segment, iova, access)
            : dataplane.call(() -> dataplane.transport.regions().register(segment, pd.id, access, iova));
        MemoryRegion mr = new MemoryRegion(pd, segment, access, key);
        regions = rehashed(regions, mr, 0);
        regionCount++;
        return mr;
    }

    /**
     * The region table (open addressing by key, read without a lock by posts) with {@code added}
     * in it and the region keyed {@code removedKey} out; a new array each time, on the control path.
     */
    private MemoryRegion[] rehashed(MemoryRegion[] old, MemoryRegion added, int removedKey) {
        int size = 64;
        while (size < 2 * (regionCount + 1)) {
            size <<= 1;
        }
        MemoryRegion[] table = new MemoryRegion[size];
        for (MemoryRegion r : old) {
            if (r != null && r.lkey != removedKey) {
                place(table, r);
            }
        }
        if (added != null) {
            place(table, added);
        }
        return table;
    }

    private static void place(MemoryRegion[] table, MemoryRegion r) {
        int mask = table.length - 1;
        int i = slotOf(r.lkey, mask);
        while (table[i] != null) {
            i = (i + 1) & mask;
        }
        table[i] = r;
    }

    private static int slotOf(int key, int mask) {
        return (key * 0x9E3779B9 >>> 16) & mask;
    }

    /**
     * Attached: the dataplane registers the same bytes of its own mapping of the pool, which is all
     * it can reach of this process's memory (it sends from and receives into the region without a
     * copy into its own address space: at most one copy, between the region and an mbuf). Peers
     * name the region by this process's address of it ({@code iova}), which the dataplane, mapping
     * the pool elsewhere, registers as the region's virtual base.
     */
    private int registerAttached(ProtectionDomain pd, MemorySegment segment, long iova, int access) {
        long at = session.poolOffset(segment, 0, segment.byteSize());
        if (at < 0) {
            throw new VerbsException("an attached context registers only memory of its shared pool, which the dataplane process"
                + " maps too: allocate it with ProtectionDomain.allocateRegion");
        }
        return session.request(new io.srdnic.verbs.attach.control.RegisterMrRequest(pd.id, at, segment.byteSize(), iova, access)).handle();
    }

    synchronized void deregister(MemoryRegion mr) {
        if (mr.deregistered) {
            throw new VerbsException("memory region already deregistered");
        }
        mr.deregistered = true;
        // At once for the responder: the next packet naming the rkey is refused, in-flight requests included.
        if (session != null) {
            session.request(new io.srdnic.verbs.attach.control.DestroyRequest(io.srdnic.verbs.attach.control.DestroyRequest.MR, mr.lkey));
        } else {
            dataplane.call(() -> {
                dataplane.transport.regions().deregister(mr.lkey);
                return null;
            });
        }
        regions = rehashed(regions, null, mr.lkey);
        regionCount--;
        mr.pd.mrs.decrementAndGet();
    }

    MemoryRegion region(int lkey) {
        MemoryRegion[] table = regions;
        int mask = table.length - 1;
        for (int i = slotOf(lkey, mask); ; i = (i + 1) & mask) {
            MemoryRegion mr = table[i];
            if (mr == null || mr.lkey == lkey) {
                return mr;
            }
        }
    }

    synchronized void registerQp(QueuePair qp) {
        if (session != null) {
            return; // the dataplane counts receives itself
        }
        QueuePair[] table = qpsByNumber.clone();
        table[qp.qpNum() & qpIndexMask] = qp;
        qpsByNumber = table;
    }

    synchronized void unregisterQp(QueuePair qp) {
        if (session != null) {
            return;
        }
        QueuePair[] table = qpsByNumber.clone();
        if (table[qp.qpNum() & qpIndexMask] == qp) {
            table[qp.qpNum() & qpIndexMask] = null;
        }
        qpsByNumber = table;
    }

    synchronized void srqCreated() {
        checkOpen();
        if (srqs == MAX_SRQ) {
            throw new VerbsException("at most " + MAX_SRQ + " SRQs per context");
        }
        srqs++;
    }

    synchronized void srqDestroyed() {
        srqs--;
    }

    /** A receive completion was polled: its QP may post one more (an SRQ counts what its receives are taken by itself). */
    void receiveConsumed(int qpn) {
        QueuePair qp = qpsByNumber[qpn & qpIndexMask];
        if (qp != null && qp.qpNum() == qpn && qp.srq == null && qp.xrcType == null) {
            qp.receivesPosted.decrementAndGet();
        }
    }

    synchronized java.lang.foreign.Arena arena() {
        if (arena == null) {
            arena = java.lang.foreign.Arena.ofShared();
        }
        return arena;
    }

    synchronized void cqDestroyed() {
        cqs--;
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException("context is closed");
        }
        if (session != null) {
            session.checkAlive();
        }
    }

    /** Throws for what an attached context does not serve (yet): {@code what} names it. */
    void notAttached(String what) {
        if (session != null) {
            throw new VerbsException(what + " are not served on an attached context yet (docs/dataplane.md): open the device embedded");
        }
    }

    /**
     * Attached: a call on the dataplane's connection manager, which owns the port's management QP
     * (for {@code io.srdnic.verbs.cm}, which runs the CM there for an attached context).
     */
    public io.srdnic.verbs.attach.control.HandleReply attachedCmCall(io.srdnic.verbs.attach.control.CmRequest request) {
        checkOpen();
        return session.request(request);
    }

    /** Attached: the oldest event of this context's CM ids the dataplane sent, or null (for {@code io.srdnic.verbs.cm}). */
    public io.srdnic.verbs.attach.control.CmEventMessage pollAttachedCmEvent() {
        return session.pollCmEvent();
    }

    /** Whether this context runs in a {@code srdnic dataplane} process (attached) rather than in this JVM. */
    public boolean isAttached() {
        return session != null;
    }

    /**
     * Runs {@code hook} when the context is closed, before its dataplane stops: for what is layered
     * on a context (its connection manager) to let go of it.
     */
    public synchronized void onClose(Runnable hook) {
        checkOpen();
        closeHooks.add(hook);
    }

    /** Stops the dataplane, closes the port and pool the device owns. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            for (Runnable hook : closeHooks) {
                hook.run();
            }
            if (session != null) {
                session.close();
                return;
            }
            dataplane.close();
            device.closeOwned();
            if (arena != null) {
                arena.close();
            }
        }
    }
}
