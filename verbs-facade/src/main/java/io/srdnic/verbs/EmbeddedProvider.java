package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.device.SrqAttributes;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.rc.SrcDomain;
import io.srdnic.verbs.attach.control.CmEventMessage;
import io.srdnic.verbs.attach.control.CmRequest;
import io.srdnic.verbs.attach.control.HandleReply;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The provider of a context whose transport runs in this JVM: every verb becomes a call on the
 * {@link Dataplane} (at once in INVOKER mode, through its post ring or command queue in DEDICATED).
 */
final class EmbeddedProvider implements VerbsProvider {
    final ContextDriver dataplane;
    private final Device device;
    private final int mtu;
    /** QPs by their slot in the transport's QP table ({@code qpn & qpIndexMask}); the entry's own number must match. */
    private volatile EmbeddedQp[] qpsByNumber;
    private final int qpIndexMask;
    private int pdCount;
    /** Memory of {@link ProtectionDomain#allocateRegion}: freed with the context. */
    private Arena arena;

    EmbeddedProvider(Device device, ContextConfig config) {
        this.device = device;
        TransportConfig srd = config.srd.copy().localIp(device.simIp != 0 ? device.simIp : config.ip).maxQps(Context.MAX_QP);
        SplittableRandom r = new SplittableRandom(config.epochSeed);
        int epoch = TransportDevice.newEpoch(); // later than any earlier start's: peers tell a restart from a stale packet
        long psnSeed = r.nextLong();
        this.dataplane = new ContextDriver(() -> new TransportDevice(device.io, srd, epoch, psnSeed), config.mode, config.cpu,
            config.busySpin, device.clock, device.world, device.name, DataplaneCounters.opener(config, device.name));
        this.mtu = dataplane.transport.mtu();
        this.qpIndexMask = dataplane.transport.qpIndexMask();
        this.qpsByNumber = new EmbeddedQp[qpIndexMask + 1];
    }

    @Override
    public DeviceAttributes queryDevice(String deviceName) {
        return new DeviceAttributes(deviceName, Context.MAX_QP, Context.MAX_CQ, Context.MAX_MR, Context.MAX_AH, Context.MAX_QP_WR,
            Context.MAX_SGE, Context.MAX_INLINE, mtu, mtu, dataplane.transport.maxRdmaSize(), true, true, true, Context.MAX_SRQ,
            Context.MAX_QP_WR,
            io.srdnic.srd.transport.qp.SharedReceiveQueue.MAX_SGE, // fully qualified: the facade has one too
            DeviceAttributes.ATOMIC_GLOB, QpAttributes.RD_ATOMIC_LIMIT);
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public int ip() {
        return dataplane.transport.localIp();
    }

    @Override
    public long mac() {
        return dataplane.transport.localMac();
    }

    @Override
    public int udpPort() {
        return dataplane.transport.config().udpPort();
    }

    @Override
    public synchronized int allocPd() {
        return ++pdCount;
    }

    @Override
    public void destroyPd(int pd) {
        // the transport keeps no PD objects: a PD is the number its regions and QPs carry
    }

    @Override
    public AsyncEventQueue.AsyncEvent pollAsyncEvent() {
        dataplane.progress();
        return dataplane.pollEvent();
    }

    @Override
    public void idle(int spins) {
        dataplane.idle(spins);
    }

    @Override
    public int progress() {
        return dataplane.progress();
    }

    @Override
    public Map<String, Long> counters() {
        return dataplane.call(() -> dataplane.transport.counters().snapshot());
    }

    @Override
    public Path countersFile() {
        return dataplane.countersFile();
    }

    @Override
    public List<String> contextReport() {
        return dataplane.call(dataplane.transport::contextReport);
    }

    @Override
    public ThreadingMode threadingMode() {
        return dataplane.mode;
    }

    @Override
    public boolean eventsEnded() {
        return false;
    }

    @Override
    public boolean isDead() {
        return false;
    }

    @Override
    public void checkAlive() {
        // the dataplane lives as long as the context
    }

    @Override
    public void refuseUnserved(String what) {
        // an embedded context serves everything
    }

    @Override
    public int registerMr(int pd, MemorySegment segment, long iova, int access) {
        return dataplane.call(() -> dataplane.transport.regions().register(segment, pd, access, iova));
    }

    @Override
    public void deregisterMr(int key) {
        dataplane.call(() -> {
            dataplane.transport.regions().deregister(key);
            return null;
        });
    }

    @Override
    public synchronized MemorySegment allocate(long size) {
        if (arena == null) {
            arena = Arena.ofShared();
        }
        return arena.allocate(size, 64);
    }

    @Override
    public int createAh(int pd, long mac, int ip, int udpPort) {
        return dataplane.call(() -> dataplane.transport.createAddressHandle(mac, ip, udpPort));
    }

    @Override
    public void destroyAh(int ah) {
        dataplane.call(() -> {
            dataplane.transport.destroyAddressHandle(ah);
            return null;
        });
    }

    @Override
    public Cq createCq(CompletionQueue cq, int depth) {
        return new EmbeddedCq(this, depth);
    }

    @Override
    public Qp createQp(QueuePair qp, XrcDomain xrcd, boolean management) {
        EmbeddedQp made = new EmbeddedQp(this, qp, xrcd, management);
        registerQp(made);
        return made;
    }

    @Override
    public Srq createSrq(SharedReceiveQueue srq, int maxWr, int maxSge, int limit) {
        return new EmbeddedSrq(dataplane, maxWr, dataplane.call(() -> dataplane.transport.createSrq(maxWr, limit)));
    }

    @Override
    public Srq createXrcSrq(SharedReceiveQueue srq, XrcDomain xrcd, CompletionQueue cq, int maxWr, int maxSge, int limit) {
        TransportDevice t = dataplane.transport;
        SrcDomain domain = domain(xrcd);
        io.srdnic.srd.api.CompletionQueue ring = ring(cq); // fully qualified: the facade has one too
        return new EmbeddedSrq(dataplane, maxWr, dataplane.call(() -> t.createSrq(new SrqAttributes().maxWr(maxWr).limit(limit)
            .pd(srq.pd.id).srcDomain(domain).srcSrqNumber(t.freeSrcSrqNumber()).srcCq(ring))));
    }

    @Override
    public Xrcd openXrcd() {
        return new EmbeddedXrcd(dataplane, dataplane.call(dataplane.transport::createSrcDomain));
    }

    @Override
    public HandleReply cmCall(CmRequest request) {
        throw new VerbsException("an embedded context runs its connection manager itself: it has no dataplane process to call");
    }

    @Override
    public CmEventMessage pollCmEvent() {
        throw new VerbsException("an embedded context runs its connection manager itself: no dataplane process sends it CM events");
    }

    @Override
    public boolean isAttached() {
        return false;
    }

    @Override
    public void close() {
        dataplane.close();
        device.closeOwned();
        synchronized (this) {
            if (arena != null) {
                arena.close();
            }
        }
    }

    /** The transport's CQ behind {@code cq}, made by this provider. */
    static io.srdnic.srd.api.CompletionQueue ring(CompletionQueue cq) { // fully qualified: the facade has one too
        return ((EmbeddedCq) cq.ops).ring;
    }

    /** The transport's SRQ behind {@code srq}, made by this provider. */
    static io.srdnic.srd.transport.qp.SharedReceiveQueue transportSrq(SharedReceiveQueue srq) { // fully qualified: the facade has one too
        return ((EmbeddedSrq) srq.ops).srq;
    }

    /** The transport's SRC domain behind {@code xrcd}, made by this provider. */
    static SrcDomain domain(XrcDomain xrcd) {
        return ((EmbeddedXrcd) xrcd.ops).domain;
    }

    private synchronized void registerQp(EmbeddedQp qp) {
        EmbeddedQp[] table = qpsByNumber.clone();
        table[qp.qpNum() & qpIndexMask] = qp;
        qpsByNumber = table;
    }

    synchronized void unregisterQp(EmbeddedQp qp) {
        EmbeddedQp[] table = qpsByNumber.clone();
        if (table[qp.qpNum() & qpIndexMask] == qp) {
            table[qp.qpNum() & qpIndexMask] = null;
        }
        qpsByNumber = table;
    }

    /** A receive completion was polled: its QP may post one more (an SRQ counts what its receives are taken by itself). */
    void receiveConsumed(int qpn) {
        EmbeddedQp qp = qpsByNumber[qpn & qpIndexMask];
        if (qp != null && qp.qpNum() == qpn) {
            qp.receiveConsumed();
        }
    }

    /** An XRC domain: the transport's SRC domain. */
    private record EmbeddedXrcd(ContextDriver dataplane, SrcDomain domain) implements Xrcd {
        @Override
        public int number() {
            return domain.number();
        }

        @Override
        public void close() {
            try {
                dataplane.call(() -> {
                    domain.destroy();
                    return null;
                });
            } catch (IllegalStateException e) {
                throw new VerbsException(e.getMessage());
            }
        }
    }
}
