package io.srdnic.srd.transport.device;

import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.AckWriter;
import io.srdnic.srd.transport.port.AddressHandles;
import io.srdnic.srd.transport.port.CycleClock;
import io.srdnic.srd.transport.port.FrameWriter;
import io.srdnic.srd.transport.port.HeldPacketPool;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.QpTable;
import io.srdnic.srd.transport.port.TransportPort;
import io.srdnic.srd.transport.port.TxBurst;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.qp.QpDevice;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.qp.SrqEvents;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.RcConnections;
import io.srdnic.srd.transport.rc.RcRequester;
import io.srdnic.srd.transport.rc.RcResponder;
import io.srdnic.srd.transport.rc.SrcDomain;
import io.srdnic.srd.transport.rc.SrcSrqTable;
import io.srdnic.srd.transport.srd.ActiveContexts;
import io.srdnic.srd.transport.srd.ContextReport;
import io.srdnic.srd.transport.srd.ContextTable;
import io.srdnic.srd.transport.srd.FlowKey;
import io.srdnic.srd.transport.srd.PathProbes;
import io.srdnic.srd.transport.srd.SendRequests;
import io.srdnic.srd.transport.srd.SrdAckIntake;
import io.srdnic.srd.transport.srd.SrdContext;
import io.srdnic.srd.transport.srd.SrdRequester;
import io.srdnic.srd.transport.srd.SrdResponder;
import io.srdnic.srd.transport.srd.SrdRnrWaits;
import io.srdnic.srd.transport.ud.UdDatagrams;
import io.srdnic.srd.wire.RdmaHeader;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The SRD transport of one device (one {@link PacketIo}): its QPs, address handles and SRD
 * contexts, driven by {@link #doWork(long)} on one thread with the time passed in (virtual time on
 * the simulator, so the same code runs deterministically there and on DPDK).
 * <p>
 * Requester: posted sends wait on their context until congestion control grants window, go out one
 * packet each (no segmentation: a message longer than the MTU completes with LOCAL_LENGTH_ERROR),
 * sprayed over the context's paths, and complete only when the responder's ACK covers them. Losses
 * are found by time, never by duplicate-ACK counting (spraying reorders by design): RACK-like — a
 * packet is lost once one sent sufficiently later has been acknowledged — and by RTO with backoff;
 * a retransmission avoids the path the packet was lost on.
 * <p>
 * Responder: {@link SrdResponder} (transport checks, then QP checks; delivery in arrival order; drop
 * indications the requester here turns into the matching completion status).
 */
public final class TransportDevice implements AutoCloseable {
    public static final int POST_OK = 0;
    /** The QP's send queue is full (ENOMEM in verbs). */
    public static final int POST_SQ_FULL = -1;
    /** The QP is not in RTS, or destroyed. */
    public static final int POST_BAD_QP_STATE = -2;
    /** The address handle does not exist or was destroyed. */
    public static final int POST_BAD_ADDRESS_HANDLE = -3;
    /** The transport's request or context table is full. */
    public static final int POST_NO_RESOURCES = -4;
    /** The work request is malformed and nothing was posted (EINVAL in verbs): an atomic whose remote address is not 8-byte aligned. */
    public static final int POST_INVALID = -5;

    private final PacketIo io;
    private final TransportConfig config;
    final int epoch;
    final long localMac;
    final int localIp;
    final int udpPort;
    private final int mtu;
    final boolean udpChecksum;
    /** Writes the Ethernet/IPv4/UDP headers of every frame this device sends. */
    private final FrameWriter frames;
    /** Writes the ACKs this device sends, SRD's and RC's. */
    private final AckWriter acks;
    /** What the QP types' halves share below the transport. */
    final TransportPort port;
    private final SplittableRandom random;
    final SrdCounters counters = new SrdCounters();
    private final AsyncEventQueue events = new AsyncEventQueue();

    private final ContextTable contexts;
    /** The contexts the duty cycle looks at. */
    private final ActiveContexts active;

    private final QpTable<DeviceQp> qps;
    private final AddressHandles addressHandles = new AddressHandles(65536);
    private final SendRequests requests;
    private final SrdRnrWaits rnrWaits;

    private final Arena arena = Arena.ofConfined();
    final TxBurst tx;
    /** Where RC and SRC responders keep packets that came early: one pool for all of them. */
    final HeldPacketPool heldPackets;
    final MemoryRegions regions;
    private final SrdRequester messages;
    private final SrdAckIntake ackIntake;
    private final PathProbes probes;
    private final PacketDispatcher dispatcher;
    private final QpErrors qpErrors;
    /** What every QP of this device reads of it (handed to each at creation). */
    private final QpDevice qpDevice;
    /** What every SRQ of this device tells it; also the device's name in {@link SharedReceiveQueue#checkUsableBy}. */
    private final SrqEvents srqEvents = new SrqEvents() {
        @Override
        public void limitReached(int srqn) {
            events.raiseForSrq(AsyncEventQueue.SRQ_LIMIT_REACHED, srqn, now());
        }

        @Override
        public void srcSrqDestroyed(SharedReceiveQueue srq) {
            srcSrqs.remove(srq);
        }
    };
    private final DutyCycle cycle;
    /** The duty cycle's time, as the parts it drives read it. */
    private final CycleClock clock = new CycleClock();
    private final SrdResponder responder;
    private final UdDatagrams datagrams;
    private final SendPosting posting;
    final RcConnections rc;
    /** SRC SRQs by the number SRC packets name them with. */
    private final SrcSrqTable srcSrqs = new SrcSrqTable();
    private int lastSrcDomain;

    /**
     * @param epoch this incarnation's epoch: non-zero, new at every start and later than the last incarnation's (see {@link #newEpoch()})
     * @param seed  with the epoch, draws context ids, first PSNs and QP numbers (deterministic runs pass a fixed one: a
     *              restart, having a later epoch, still draws others)
     */
    public TransportDevice(PacketIo io, TransportConfig config, int epoch, long seed) {
        if (epoch == 0) {
            throw new IllegalArgumentException("epoch 0 is reserved");
        }
        this.io = io;
        this.config = config.conclude(io.maxFrameLength());
        this.epoch = epoch;
        this.localMac = io.macAddress();
        this.localIp = config.localIp();
        this.udpPort = config.udpPort();
        this.mtu = config.mtu();
        this.udpChecksum = config.udpChecksum();
        this.frames = new FrameWriter(localMac, localIp, udpPort, udpChecksum, io.offloadsUdpChecksum(), counters);
        this.random = new SplittableRandom(seed ^ 0x9E37_79B9_7F4A_7C15L * epoch);
        this.contexts = new ContextTable(this.config, counters, random);
        this.active = new ActiveContexts(contexts, config.maxContexts());
        this.qps = new QpTable<>(config.maxQps(), random);
        this.requests = new SendRequests(config.maxOutstandingRequests());
        this.regions = new MemoryRegions(config.maxMemoryRegions(), random.split());
        this.tx = new TxBurst(io, arena, config.burst(), counters);
        this.acks = new AckWriter(tx, frames, epoch, counters);
        this.heldPackets = new HeldPacketPool(config.rcHeldPackets(), config.mtu() + TransportConfig.FRAME_OVERHEAD);
        this.port = new TransportPort(tx, frames, acks, regions, heldPackets, counters, epoch, qps, addressHandles);
        this.rnrWaits = new SrdRnrWaits(requests, contexts, active, this.config);
        this.messages = new SrdRequester(port, contexts, requests, mtu, frames, active, rnrWaits, clock,
            this.config.zeroCopyMinBytes(frames.sumsInSoftware()));
        regions.readBy(tx);
        this.ackIntake = new SrdAckIntake(contexts, messages, counters, epoch, this.config);
        this.probes = new PathProbes(tx, frames, contexts, counters, epoch);
        this.responder = new SrdResponder(port, contexts, config, messages, acks);
        this.datagrams = new UdDatagrams(port, this.config.paths(), frames);
        this.rc = new RcConnections(port, qps, config.maxQps(), this::flushQp);
        this.posting = new SendPosting(this, requests, messages, datagrams, addressHandles, rc, clock);
        this.qpErrors = new QpErrors(qps, requests, messages, rc, events, counters, clock::now);
        this.qpDevice = new QpDevice(mtu, this::isAddressHandleLive, regions::admits, counters);
        this.dispatcher = new PacketDispatcher(io, arena, this.config, counters, rc, ackIntake, probes, responder, datagrams, clock);
        this.cycle = new DutyCycle(this.config, tx, dispatcher, responder, rc, messages, contexts, active, rnrWaits, probes, requests,
            counters, events, clock);
    }

    private static final AtomicInteger LAST_EPOCH = new AtomicInteger();

    /**
     * A fresh epoch for a transport starting now: the time in 64 ms ticks, and always above the last
     * one this JVM gave, so a peer can order a host's incarnations (a later start has a later epoch;
     * compared wrap-safe, which holds for about four years of 64 ms ticks) and refuse a stale one.
     */
    public static int newEpoch() {
        int candidate = (int) (System.currentTimeMillis() >>> 6);
        while (true) {
            int last = LAST_EPOCH.get();
            int next = candidate - last > 0 ? candidate : last + 1;
            if (next == 0) {
                next = 1;
            }
            if (LAST_EPOCH.compareAndSet(last, next)) {
                return next;
            }
        }
    }

    public TransportConfig config() {
        return config;
    }

    public int mtu() {
        return mtu;
    }

    public int epoch() {
        return epoch;
    }

    public int localIp() {
        return localIp;
    }

    public long localMac() {
        return localMac;
    }

    public SrdCounters counters() {
        return counters;
    }

    public AsyncEventQueue events() {
        return events;
    }

    // For TransportCounters, which publishes what these keep.
    PacketIo packetIo() {
        return io;
    }

    ContextTable contextTable() {
        return contexts;
    }

    QpTable<DeviceQp> qpTable() {
        return qps;
    }

    // ---------------------------------------------------------------- control path

    /**
     * Creates a QP in RESET with {@code attributes}: the one creation entry point. A QP with an SRQ
     * takes its receives from it (it has no receive queue of its own); any type but SRC takes no SRC
     * domain. An SRC QP (seed 001) is an RC QP in all but two things: it belongs to its SRC domain
     * (required), and it has no SRQ nor receive queue: each message that arrives names the SRQ of
     * that domain it is for, and completes on that SRQ's CQ; its work requests name the remote SRQ
     * ({@link WorkRequest#remoteSrqn}). It is connected and moved through its states as an RC QP.
     */
    public DeviceQp createQp(TransportQpAttributes attributes) {
        TransportQpAttributes a = attributes;
        if (a.srq != null) {
            return createSrqQp(a.type, a.pd, a.sqDepth, a.srq, a.sendCq, a.recvCq); // refuses SRC
        }
        return a.type == QpType.SRC || a.srcDomain != null ? createSrcQp(a.type, a.pd, a.sqDepth, a.srcDomain, a.sendCq)
            : newQp(a.type, a.pd, a.sqDepth, a.rqDepth, a.sendCq, a.recvCq);
    }

    private DeviceQp createSrcQp(QpType type, int pd, int sqDepth, SrcDomain domain, CompletionQueue sendCq) {
        if (type != QpType.SRC) {
            throw new IllegalArgumentException("only SRC QPs take an SRC domain; a " + type + " QP is created without one");
        }
        if (domain == null) {
            throw new IllegalArgumentException("the SRC domain attribute of an SRC QP is required: createSrcDomain() makes one");
        }
        domain.checkUsableBy(this);
        DeviceQp qp = newQp(type, pd, sqDepth, 1, sendCq, null);
        qp.srcDomain = domain;
        domain.attachQp();
        return qp;
    }

    private DeviceQp newQp(QpType type, int pd, int sqDepth, int rqDepth, CompletionQueue sendCq, CompletionQueue recvCq) {
        if (sqDepth < 1 || rqDepth < 1) {
            throw new IllegalArgumentException("queue depths must be positive");
        }
        int qpn = qps.nextQpn();
        if (qpn < 0) {
            throw new IllegalStateException("all " + config.maxQps() + " QPs are in use: destroy some or raise TransportConfig.maxQps");
        }
        DeviceQp qp = new DeviceQp(qpDevice, qpErrors, type, qpn, pd, sqDepth, rqDepth, sendCq, recvCq);
        if (type.connected()) {
            qp.rcRequester = new RcRequester(port, qps.indexMask(), mtu, qp, config, sqDepth, frames, rc, clock);
            qp.rcResponder = new RcResponder(port, srcSrqs, qp, qp.rcRequester, config, acks, qpErrors, rc, clock);
        }
        qps.put(qp);
        return qp;
    }

    /** The number of every device's management QP: a peer addresses it without being told (InfiniBand's QP1). */
    public static final int MANAGEMENT_QPN = QpTable.MANAGEMENT_QPN;

    /**
     * Creates the device's management QP: UD, in RESET, at {@link #MANAGEMENT_QPN}, for the
     * connection manager's messages. One per transport; a second is refused until the first is destroyed.
     */
    public DeviceQp createManagementQp(int pd, int sqDepth, int rqDepth, CompletionQueue sendCq, CompletionQueue recvCq) {
        if (sqDepth < 1 || rqDepth < 1) {
            throw new IllegalArgumentException("queue depths must be positive");
        }
        if (!qps.managementFree()) {
            throw new IllegalStateException("this device already has its management QP (QPN " + MANAGEMENT_QPN + ")");
        }
        DeviceQp qp = new DeviceQp(qpDevice, qpErrors, QpType.UD, MANAGEMENT_QPN, pd, sqDepth, rqDepth, sendCq, recvCq);
        qps.put(qp);
        return qp;
    }

    // ---------------------------------------------------------------- shared receive queues (SharedReceiveQueue)

    private int lastSrqn;

    /** Creates a shared receive queue of {@code maxWr} receives; {@code limit} > 0 arms its limit event. */
    public SharedReceiveQueue createSrq(int maxWr, int limit) {
        return createSrq(new SrqAttributes().maxWr(maxWr).limit(limit));
    }

    /**
     * Creates a shared receive queue as {@code attributes} say; with its three SRC attributes (all
     * three or none, else IllegalArgumentException naming those missing) SRC messages naming its
     * SRC SRQ number are delivered into it.
     */
    public SharedReceiveQueue createSrq(SrqAttributes attributes) {
        boolean src = attributes.checkSrc();
        if (src) {
            attributes.srcDomain().checkUsableBy(this);
        }
        int srqn = lastSrqn % 0xFF_FFFF + 1; // 24 bits, as QPNs: the SRQ's own name, in events (SRC packets carry the SRC SRQ number)
        SharedReceiveQueue srq = src
            ? new SharedReceiveQueue(srqEvents, srqn, attributes.maxWr(), attributes.limit(), attributes.pd(), attributes.srcDomain(),
                attributes.srcSrqNumber(), attributes.srcCq())
            : new SharedReceiveQueue(srqEvents, srqn, attributes.maxWr(), attributes.limit(), attributes.pd());
        if (src) {
            srcSrqs.put(srq); // throws if the number is taken: before anything else changed
            attributes.srcDomain().attachSrq();
        }
        lastSrqn = srqn;
        return srq;
    }

    /** Creates an SRC domain (seed 001): SRC QPs deliver only into SRC SRQs of their own domain. */
    public SrcDomain createSrcDomain() {
        return new SrcDomain(this, ++lastSrcDomain);
    }

    /** The SRC SRQ that SRC packets naming {@code number} are for, or null. */
    public SharedReceiveQueue srcSrq(int number) {
        return srcSrqs.get(number);
    }

    /** An SRC SRQ number no SRQ of this device has: for an application that does not choose its own. */
    public int freeSrcSrqNumber() {
        return srcSrqs.freeNumber();
    }

    private DeviceQp createSrqQp(QpType type, int pd, int sqDepth, SharedReceiveQueue srq, CompletionQueue sendCq,
                              CompletionQueue recvCq) {
        if (type == QpType.SRC) {
            throw new IllegalArgumentException("an SRC QP has no SRQ attribute: each message names the SRQ it is for by its SRC SRQ number;"
                + " create it with new TransportQpAttributes(QpType.SRC).srcDomain(domain)");
        }
        srq.checkUsableBy(srqEvents);
        DeviceQp qp = newQp(type, pd, sqDepth, 1, sendCq, recvCq); // its own one-entry ring, replaced at once by the SRQ's
        qp.takeReceivesFrom(srq);
        return qp;
    }

    /** The time of the current duty cycle, for the events of objects the transport drives (an SRQ's limit). */
    long now() {
        return clock.now();
    }

    // ---------------------------------------------------------------- (end of shared receive queues)

    /** The QP with this number, or null (also for the number of a destroyed QP whose slot was reused). */
    public DeviceQp qp(int qpn) {
        return qps.get(qpn);
    }

    /** Bits of a QPN that index the QP table: {@code qpn & qpIndexMask()} is a QP's slot, for tables above that mirror it. */
    public int qpIndexMask() {
        return qps.indexMask();
    }

    /** The memory regions RDMA requests to this device are checked against. */
    public MemoryRegions regions() {
        return regions;
    }

    /** An address handle for a remote device; contexts are created on first use, one per remote device (its {@link FlowKey}). */
    public int createAddressHandle(long mac, int ip, int port) {
        if (!isUsableSource(ip) || port <= 0 || port > 65535) {
            throw new IllegalArgumentException("an address handle needs a unicast IPv4 address of another host (not 0.0.0.0, broadcast, "
                + "multicast, loopback or this device's own) and a UDP port 1..65535");
        }
        if (port != udpPort) {
            // The UDP source port carries path entropy, so a responder cannot learn the sender's SRD
            // port from its packets: ACKs, drop indications and probe replies go to the one port
            // every SRD device on the fabric listens on (as RoCEv2 uses 4791 everywhere).
            throw new IllegalArgumentException("SRD uses one UDP port per fabric: this device listens on " + udpPort
                + " and answers every peer on that port, so a peer listening on " + port
                + " would never see an ACK; configure both ends with the same udp-port");
        }
        int ah = addressHandles.create(mac, ip, port);
        if (ah < 0) {
            throw new IllegalStateException("address handle table full");
        }
        return ah;
    }

    /** Destroys an address handle: its outstanding work requests complete with WR_FLUSH_ERROR. */
    public void destroyAddressHandle(int ah) {
        if (!addressHandles.isLive(ah)) {
            throw new IllegalArgumentException("address handle " + ah + " does not exist");
        }
        addressHandles.destroy(ah);
        for (int r = 0; r < requests.capacity; r++) {
            int st = requests.state[r];
            if (requests.addressHandle[r] == ah && (st == SendRequests.PENDING || st == SendRequests.OUTSTANDING
                    || st == SendRequests.RNR_WAIT)) {
                messages.finish(r, WcStatus.WR_FLUSH_ERROR);
            }
        }
    }

    public boolean isAddressHandleLive(int ah) {
        return addressHandles.isLive(ah);
    }

    long addressHandleMac(int ah) {
        return addressHandles.mac(ah);
    }

    int addressHandleIp(int ah) {
        return addressHandles.ip(ah);
    }

    int addressHandlePort(int ah) {
        return addressHandles.port(ah);
    }

    /** QP to ERROR or RESET: see {@link QpErrors#flush}. */
    void flushQp(DeviceQp qp, boolean withCompletions) {
        qpErrors.flush(qp, withCompletions);
    }

    // ---------------------------------------------------------------- posting

    /**
     * Posts the send work request {@code wr} on {@code qp}: the one entry point for every QP type and
     * opcode. An atomic carries its operands, a request with a gather list sends its entries (RC and
     * SRC), an SRC QP's request names the remote SRQ, the others' their destination. {@code wr} is
     * read during the call only: the caller may refill it at once. Returns POST_OK or a negative
     * POST_* code (nothing posted); {@link SendPosting} has the checks and what a refused request
     * completes with.
     */
    public int post(DeviceQp qp, WorkRequest wr) {
        boolean src = qp.type == QpType.SRC;
        if (SendOpcode.isAtomic(wr.opcode)) {
            return src ? posting.postSrcAtomic(qp, wr) : posting.postAtomic(qp, wr);
        }
        if (wr.sges != null) {
            return posting.postGather(qp, src ? wr.remoteSrqn : 0, wr);
        }
        return src ? posting.postSrc(qp, wr) : posting.postSend(qp, wr, clock.now());
    }

    /** The largest RDMA request: longer ones complete with LOCAL_LENGTH_ERROR. */
    public int maxRdmaSize() {
        return RdmaHeader.MAX_DMA_LENGTH;
    }

    /**
     * Completes, with an error, a send the layer above refused before posting it (a bad lkey, an
     * opcode the QP type cannot carry): the QP's send CQ gets it like any other completion.
     */
    public void completeLocally(DeviceQp qp, long wrId, int status, int length) {
        if (qp.type.connected() && qp.acceptsSends() && status != WcStatus.WR_FLUSH_ERROR && !qp.rcRequester.isFull()) {
            // RC: in post order after the requests before it, then the QP goes to ERROR (issue 25, rule 1).
            qp.sqOutstanding++;
            qp.rcRequester.postRefused(wrId, SendOpcode.SEND, null, 0, length, status, false);
            return;
        }
        if (qp.type.connected() && qp.state == QpState.ERROR) {
            status = WcStatus.WR_FLUSH_ERROR; // posted to an RC QP in ERROR: flushed, whatever was wrong with it
        }
        counters.sendCompletions[status]++;
        if (!qp.sendCq.push(wrId, status, WcOpcode.SEND, length, false, 0, qp.qpn, 0, 0)) {
            qpErrors.onCqOverrun(qp.sendCq);
        }
    }

    // ---------------------------------------------------------------- contexts

    /** The context for the remote device {@code flow} ({@link FlowKey}), opened if there is none (see {@link ContextTable#openFor}). */
    SrdContext contextFor(long flow, long mac, long now) {
        return contexts.openFor(flow, mac, now);
    }

    /** The flow a received packet from {@code ip} belongs to ({@link ContextTable#flowFrom}). */
    long flowFrom(int ip) {
        return contexts.flowFrom(ip);
    }

    /**
     * Whether a packet from {@code ip} can be from a peer: not 0.0.0.0, broadcast, multicast or
     * reserved (224/3), loopback, nor this device's own address (a reflected or spoofed frame).
     */
    boolean isUsableSource(int ip) {
        return PacketDispatcher.isUsableSource(ip, localIp);
    }

    /** The contexts alive now (for tests and reports). */
    List<SrdContext> liveContexts() {
        return contexts.liveContexts();
    }

    SrdContext contextAt(int index) {
        return contexts.at(index);
    }

    /** The context for the remote device {@code flow} ({@link FlowKey}), or null. */
    SrdContext existingContext(long flow) {
        return contexts.existing(flow);
    }

    /** Number of contexts alive now (created and not reclaimed). */
    public int contextCount() {
        return contexts.size();
    }

    // ---------------------------------------------------------------- duty cycle (DutyCycle)

    /** One duty cycle at time {@code now} ({@link DutyCycle#doWork}); returns the work done. */
    public int doWork(long now) {
        return cycle.doWork(now);
    }

    /** The send half of a duty cycle ({@link DutyCycle#transmitPosted}); returns the work done. */
    public int transmitPosted(long now) {
        return cycle.transmitPosted(now);
    }

    /** Whether {@link #transmitPosted} has anything to do: frames built or owed, or a post since the last send. */
    public boolean hasPostedWork() {
        return cycle.hasPostedWork();
    }

    /** The earliest time something will be due without any packet arriving ({@link DutyCycle#nextDeadline}), or Long.MAX_VALUE. */
    public long nextDeadline() {
        return cycle.nextDeadline();
    }

    // ---------------------------------------------------------------- introspection

    /** Per-context and per-path counters, one line per context, for {@code --stats}. */
    public List<String> contextReport() {
        return ContextReport.lines(contexts.liveContexts());
    }

    /** Requests in flight or waiting, over all contexts: 0 when everything has completed. */
    public int requestsInUse() {
        return requests.inUse();
    }

    @Override
    public void close() {
        responder.sendOwedAcks(); // the peer is owed them for what was delivered
        rc.sendOwedAcks();
        tx.close();
        dispatcher.close();
        arena.close();
    }
}
