package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.transport.port.GatherList;
import io.srdnic.verbs.attach.control.CmEventMessage;
import io.srdnic.verbs.attach.control.CmRequest;
import io.srdnic.verbs.attach.control.HandleReply;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An open device (ibv_context) with its embedded dataplane, or attached to a {@code srdnic dataplane}
 * process ({@link Device#attached}): the {@link VerbsProvider} chosen when it opens does the work
 * underneath every object made on it. Open one per device; close it to stop
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
    static final int MAX_SGE = GatherList.MAX_SGE;
    static final int MAX_INLINE = 256;

    final Device device;
    /** What runs underneath: the transport in this JVM, or a {@code srdnic dataplane} process; chosen once, here. */
    final VerbsProvider provider;
    private final int mtu;
    private volatile MemoryRegion[] regions = new MemoryRegion[64];
    private int regionCount;
    private int cqs;
    private int srqs;
    private boolean closed;
    private final List<Runnable> closeHooks = new ArrayList<>();

    private Context(Device device, ContextConfig config) {
        this.device = device;
        this.provider = device.attachDir != null ? new AttachedProvider(device, config) : new EmbeddedProvider(device, config);
        this.mtu = provider.mtu();
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
        return provider.queryDevice(device.name);
    }

    public int mtu() {
        return mtu;
    }

    /** This device's IPv4 address and MAC, for the peer's address handle. */
    public int ip() {
        return provider.ip();
    }

    public long mac() {
        return provider.mac();
    }

    /** The SRD UDP port this device listens on. */
    public int udpPort() {
        return provider.udpPort();
    }

    public ProtectionDomain allocPd() {
        checkOpen();
        return new ProtectionDomain(this, provider.allocPd());
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
        // counted once made: a refused create (attached: the dataplane's ERROR) leaks no slot
        CompletionQueue cq = new CompletionQueue(this, depth);
        cqs++;
        return cq;
    }

    /**
     * The next async event (REMOTE_UNRESPONSIVE, CQ_ERROR, QP_FATAL, SRQ_LIMIT_REACHED,
     * SQ_DRAINED), or null. Runs the duty cycle in INVOKER mode.
     */
    public AsyncEventQueue.AsyncEvent pollAsyncEvent() {
        return provider.pollAsyncEvent();
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
        provider.idle(spins);
    }

    /** Runs one duty cycle (INVOKER mode; DEDICATED runs by itself). Returns the work done. */
    public int progress() {
        return provider.progress();
    }

    /** A snapshot of the transport's counters (packets, retransmits, drops by reason, ...). */
    public Map<String, Long> counters() {
        return provider.counters(); // attached: none, the dataplane's own counters are its to show (srdnic stat)
    }

    /** The file this context publishes its live counters in (ContextConfig.countersDir), or null (always, attached). */
    public Path countersFile() {
        return provider.countersFile();
    }

    /** Per-context and per-path lines (RTT, window, losses), as {@code srdnic perf --stats} prints them. */
    public List<String> contextReport() {
        return provider.contextReport();
    }

    /** The context's clock in nanoseconds: virtual on a simulator, where waiting means letting the world run. */
    public long now() {
        return device.clock.getAsLong();
    }

    /** How the dataplane runs: INVOKER when the application's calls drive it (always on a simulator). */
    public ThreadingMode threadingMode() {
        return provider.threadingMode();
    }

    /**
     * Attached: the dataplane is gone and every event it sent is queued (its reader thread has
     * stopped); embedded: closed. What a CM waits for before it tells its ids DEVICE_REMOVAL.
     */
    public boolean deviceEventsEnded() {
        return isClosed() || provider.eventsEnded();
    }

    /** Whether the device is gone for everything made on this context: it was closed, or (attached) its dataplane died. */
    public boolean isDeviceGone() {
        return isClosed() || provider.isDead();
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
        int key = provider.registerMr(pd.id, segment, iova, access);
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

    synchronized void deregister(MemoryRegion mr) {
        if (mr.deregistered) {
            throw new VerbsException("memory region already deregistered");
        }
        mr.deregistered = true;
        // At once for the responder: the next packet naming the rkey is refused, in-flight requests included.
        provider.deregisterMr(mr.lkey);
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

    synchronized void cqDestroyed() {
        cqs--;
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException("context is closed");
        }
        provider.checkAlive();
    }

    /** Throws for what an attached context does not serve (yet): {@code what} names it. */
    void notAttached(String what) {
        provider.refuseUnserved(what);
    }

    /**
     * Attached: a call on the dataplane's connection manager, which owns the port's management QP
     * (for {@code io.srdnic.verbs.cm}, which runs the CM there for an attached context).
     */
    public HandleReply attachedCmCall(CmRequest request) {
        checkOpen();
        return provider.cmCall(request);
    }

    /** Attached: the oldest event of this context's CM ids the dataplane sent, or null (for {@code io.srdnic.verbs.cm}). */
    public CmEventMessage pollAttachedCmEvent() {
        return provider.pollCmEvent();
    }

    /** The embedded dataplane, for tests that look into it; throws on an attached context. */
    ContextDriver dataplane() {
        return ((EmbeddedProvider) provider).dataplane;
    }

    /** The link to the dataplane process, for tests that break it; throws on an embedded context. */
    AttachedSession session() {
        return ((AttachedProvider) provider).session;
    }

    /** Whether this context runs in a {@code srdnic dataplane} process (attached) rather than in this JVM. */
    public boolean isAttached() {
        return provider.isAttached();
    }

    /**
     * Runs {@code hook} when the context is closed, before its dataplane stops: for what is layered
     * on a context (its connection manager) to let go of it.
     */
    public synchronized void onClose(Runnable hook) {
        checkOpen();
        closeHooks.add(hook);
    }

    /** Embedded: stops the dataplane, closes the port and pool the device owns; attached: leaves the dataplane process. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            for (Runnable hook : closeHooks) {
                hook.run();
            }
            provider.close();
        }
    }
}
