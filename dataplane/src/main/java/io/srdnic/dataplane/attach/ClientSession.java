package io.srdnic.dataplane.attach;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.DeviceAttributes;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.SharedReceiveQueue;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.XrcDomain;
import io.srdnic.verbs.XrcQpType;
import io.srdnic.verbs.attach.CompletionRecord;
import io.srdnic.verbs.attach.FreeSpace;
import io.srdnic.verbs.attach.RecvRecord;
import io.srdnic.verbs.attach.SendRecord;
import io.srdnic.verbs.attach.SharedLayout;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.CmEventMessage;
import io.srdnic.verbs.attach.control.CmRequest;
import io.srdnic.verbs.attach.control.CreateAhRequest;
import io.srdnic.verbs.attach.control.CreateQpRequest;
import io.srdnic.verbs.attach.control.CreateSrqRequest;
import io.srdnic.verbs.attach.control.DestroyRequest;
import io.srdnic.verbs.attach.control.HandleReply;
import io.srdnic.verbs.attach.control.ModifyQpRequest;
import io.srdnic.verbs.attach.control.OpenReply;
import io.srdnic.verbs.attach.control.OpenRequest;
import io.srdnic.verbs.attach.control.QpAttributesReply;
import io.srdnic.verbs.attach.control.QueryQpRequest;
import io.srdnic.verbs.attach.control.RegisterMrRequest;
import io.srdnic.verbs.attach.control.SrqRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One attached client on the dataplane: its shared file, and every object it made, in tables of
 * its own. A handle a client names (PD, CQ, QP, AH, MR) is looked up in its own tables only, so
 * another client's handle is "no such …", never someone else's object. Everything is made on the
 * dataplane's embedded context of the port the client opened, through the public verbs API: the
 * embedded checks (an lkey of this QP's PD, an SGE inside the region) are the isolation checks.
 * Runs on the dataplane thread only.
 */
final class ClientSession {
    static final long MIN_POOL = 1 << 16;
    static final long MAX_POOL = 16L << 30;
    static final long MIN_RINGS = 1 << 16;
    static final long MAX_RINGS = 1L << 30;
    /** The most sends one QP's ring gives up in one pass. */
    static final int BURST = 64;
    /**
     * The most receive records, and the most send records, one pass takes from one client (over
     * all its rings): what bounds the time a pass spends on a client, whatever it writes. A client
     * whose receive rings hold more waits for the next pass, and so do its sends (below).
     */
    static final int PASS_BUDGET = 1024;

    final long id;
    private final Path shmDir;
    private Context context;
    private Path shmFile;
    /**
     * The client's memory (a sealed memfd, or with --shm-dir a file there), open while the client
     * is: what OPEN's reply passes it, and (for a file) whose size says whether it was truncated.
     */
    private int memoryFd = -1;
    /** Holds the dataplane's one mapping of it: closed (munmap) when the client is reclaimed. */
    private Arena mapping;
    private long fileBytes;
    private ClientQuota quota = ClientQuota.DEFAULTS;
    /** What all clients hold together: this one's pool, CQ and QP entries are taken from it and given back at destroy and reclaim. */
    private TotalQuota totals;
    /** The shared memory taken from {@link #totals} at OPEN, given back when it is unmapped. */
    private long poolTaken;
    /** Counted against {@link #quota}: ring records (a CQ's, a QP's two, an SRQ's) the client holds now. */
    private long cqEntries;
    private long qpEntries;
    /** Address handles held (the table is indexed by the transport's number, so its length is not the count). */
    private int ahCount;
    private MemorySegment file;
    private MemorySegment pool;
    private MemorySegment rings;
    /** What of the ring area is handed out to the client's QPs, CQs and SRQs. */
    private FreeSpace ringSpace;
    private final Map<Integer, ProtectionDomain> pds = new HashMap<>();
    private final Map<Integer, ServedCq> cqs = new HashMap<>();
    private final Map<Integer, ServedQp> qps = new HashMap<>();
    private final Map<Integer, MemoryRegion> mrs = new HashMap<>();
    /** By the transport's AH number, which the send ring names: the one lookup of the data path, so no boxing. */
    private AddressHandle[] ahs = new AddressHandle[16];
    private final List<ServedQp> qpList = new ArrayList<>();
    private final List<ServedCq> cqList = new ArrayList<>();
    /** By the SRQ's number (what events and CREATE_QP name it by). */
    private final Map<Integer, ServedSrq> srqs = new HashMap<>();
    private final List<ServedSrq> srqList = new ArrayList<>();
    private final Map<Integer, XrcDomain> xrcds = new HashMap<>();
    private int nextXrcd = 1;
    /** The client's CM ids, once it makes one. */
    private ServedCm cm;
    private int nextPd = 1;
    private int nextCq = 1;
    private long refused;
    /**
     * Ring occupancy: records in all the client's send, receive and completion rings when the
     * dataplane last looked (the gauges), and the most seen at once (high-water marks). Plain fields
     * of the dataplane thread, copied into the counters file by the same thread: no lock.
     */
    private long sendFill;
    /** This pass took fewer receives than the client's rings hold, for want of budget. */
    private boolean receivesLeft;
    private long recvFill;
    private long completionFill;
    private long sendHighWater;
    private long recvHighWater;
    private long completionHighWater;

    ClientSession(long id, Path shmDir) {
        this.id = id;
        this.shmDir = shmDir;
    }

    boolean isOpen() {
        return context != null;
    }

    Context context() {
        return context;
    }

    MemorySegment pool() {
        return pool;
    }

    /**
     * This client's objects as lines of the res file ({@link ResFile}), headed by its line
     * {@code client ID uid U pid P port I ...}: on the dataplane thread.
     */
    void describe(StringBuilder out, int uid, int pid, int port) {
        long mrBytes = 0;
        for (MemoryRegion mr : mrs.values()) {
            mrBytes += mr.segment().byteSize();
        }
        out.append("client ").append(id).append(" uid ").append(uid).append(" pid ").append(pid).append(" port ").append(port)
            .append(" device ").append(context.queryDevice().name()).append(" pool_bytes ").append(pool.byteSize())
            .append(" ring_bytes ").append(rings.byteSize()).append(" mr_bytes ").append(mrBytes).append('\n');
        String of = " client " + id;
        pds.keySet().stream().sorted().forEach(h -> out.append("pd ").append(h).append(of).append('\n'));
        cqs.values().stream().sorted(Comparator.comparingInt(c -> c.handle))
            .forEach(c -> out.append("cq ").append(c.handle).append(of).append(" depth ").append(c.ring.capacity()).append('\n'));
        qps.values().stream().sorted(Comparator.comparingInt(q -> q.qp.qpNum())).forEach(q -> out.append("qp ").append(q.qp.qpNum())
            .append(of).append(" type ").append(q.qp.type()).append(" state ").append(q.qp.state()).append('\n'));
        mrs.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> out.append("mr ")
                .append(Integer.toUnsignedString(e.getKey()))
            .append(of).append(" length ").append(e.getValue().segment().byteSize()).append('\n'));
        srqs.keySet().stream().sorted().forEach(n -> out.append("srq ").append(n).append(of).append('\n'));
        for (int n = 1; n < ahs.length; n++) {
            if (ahs[n] != null) {
                out.append("ah ").append(n).append(of).append('\n');
            }
        }
        xrcds.keySet().stream().sorted().forEach(h -> out.append("xrcd ").append(h).append(of).append('\n'));
        if (cm != null) {
            cm.handles().forEach(h -> out.append("cm_id ").append(h).append(of).append('\n'));
        }
    }

    /**
     * Whether the client made its shared file shorter than the dataplane mapped it: then touching
     * the lost pages faults (SIGBUS, which the JVM raises as an InternalError), and the fault is
     * this client's doing. (A memfd sealed against shrinking would rule it out; see docs/dataplane.md.)
     */
    boolean truncatedItsFile() {
        // a sealed memfd cannot shrink; a file's size is asked (-1, not what the dataplane made, is this client's doing too)
        return memoryFd >= 0 && shmFile != null && SealedMemory.size(memoryFd) < fileBytes;
    }

    /** The descriptor of the client's memory, which OPEN's reply passes it (SCM_RIGHTS); -1 before OPEN. */
    int memoryFd() {
        return memoryFd;
    }

    /** Unmaps the client's memory now (closing the arena waits out any thread inside it), then closes its descriptor. */
    private void closeFile() {
        if (mapping != null) {
            mapping.close();
            mapping = null;
            file = null;
            pool = null;
            rings = null;
        }
        if (memoryFd >= 0) {
            SealedMemory.close(memoryFd);
            memoryFd = -1;
        }
        if (poolTaken > 0) {
            totals.givePool(poolTaken);
            poolTaken = 0;
        }
    }

    /** Work requests the dataplane refused for this client before the transport saw them. */
    long refusedCount() {
        return refused;
    }

    void refused() {
        refused++;
    }

    /**
     * OPEN: makes and maps the shared file (0600, the dataplane's user) and says where everything
     * lies; {@code quota} bounds what it may make.
     */
    OpenReply open(Context on, OpenRequest request, ClientQuota quota, TotalQuota totals) {
        this.quota = quota;
        this.totals = totals;
        if (request.poolBytes() < MIN_POOL || request.poolBytes() > MAX_POOL) {
            throw new VerbsException("pool of " + request.poolBytes() + " bytes: ask " + MIN_POOL + ".." + MAX_POOL);
        }
        if (request.ringBytes() < MIN_RINGS || request.ringBytes() > MAX_RINGS) {
            throw new VerbsException("ring area of " + request.ringBytes() + " bytes: ask " + MIN_RINGS + ".." + MAX_RINGS);
        }
        if (request.poolBytes() > quota.poolBytes()) {
            throw new QuotaRefused(false, "over this client's quota: a pool of " + request.poolBytes() + " bytes asked; at most "
                    + quota.poolBytes()
                + " bytes (--quota pool-bytes)");
        }
        long ringsBytes = SharedLayout.align(request.ringBytes());
        long poolOffset = SharedLayout.HEADER_BYTES + ringsBytes;
        long poolBytes = SharedLayout.align(request.poolBytes());
        long total = poolOffset + poolBytes;
        totals.takePool(total); // before anything is made: a refusal leaves nothing to undo
        poolTaken = total;
        String name = "srdnic-" + ProcessHandle.current().pid() + "-" + id;
        String described; // what the reply names it by (logs, thread names): the client maps the descriptor it is passed
        try {
            if (shmDir == null) { // a sealed memfd: nothing can shrink it, nothing in /dev/shm names it
                memoryFd = SealedMemory.create(name, total);
                described = "memfd:" + name;
            } else {
                shmFile = shmDir.resolve(name);
                described = shmFile.toString();
                Files.deleteIfExists(shmFile); // a dead dataplane's of the same pid and id
                memoryFd = SealedMemory.createFile(shmFile, total);
            }
            // A shared arena closed at reclaim: munmap then, whatever the GC does; the client's
            // objects are destroyed first, so the transport holds no segment of it by then.
            mapping = Arena.ofShared();
            file = SealedMemory.map(memoryFd, total, mapping);
            fileBytes = total;
        } catch (IOException e) {
            closeFile();
            if (shmFile != null) {
                try {
                    Files.deleteIfExists(shmFile);
                } catch (IOException ignored) {
                    // said below; the sweep at start removes it
                }
            }
            throw new VerbsException("could not make the client's " + total + " bytes of shared memory ("
                    + (shmDir == null ? "memfd" : shmFile)
                + "): " + e.getMessage());
        }
        file.set(ValueLayout.JAVA_LONG, SharedLayout.MAGIC_OFFSET, SharedLayout.MAGIC);
        file.set(ValueLayout.JAVA_INT, SharedLayout.VERSION_OFFSET, SharedLayout.VERSION);
        rings = file.asSlice(SharedLayout.HEADER_BYTES, ringsBytes);
        ringSpace = new FreeSpace(ringsBytes);
        pool = file.asSlice(poolOffset, poolBytes);
        context = on;
        DeviceAttributes a = on.queryDevice();
        int[] attributes = {a.maxQp(), a.maxCq(), a.maxMr(), a.maxAh(), a.maxQpWr(), Math.min(a.maxSge(), SendRecord.MAX_SGE),
            Math.min(a.maxInlineData(), SendRecord.MAX_INLINE), a.mtu(), a.maxMessageSize(), a.maxRdmaSize(), a.rdmaRead() ? 1 : 0,
                    a.rdmaWrite() ? 1 : 0,
            a.rnrRetry() ? 1 : 0, a.maxSrq(), a.maxSrqWr(), a.maxSrqSge(), a.atomicCap(), a.maxQpRdAtom()};
        return new OpenReply(described, total, poolOffset, poolBytes, SharedLayout.HEADER_BYTES, ringsBytes, on.ip(), on.mac(),
            on.udpPort(), a.name(), attributes);
    }

    HandleReply allocPd() {
        overQuota(pds.size() >= quota.pds(), "protection domains", pds.size(), quota.pds());
        int handle = nextPd++;
        pds.put(handle, context.allocPd());
        return HandleReply.of(handle);
    }

    HandleReply createCq(int depth) {
        if (depth < 1 || depth > (1 << 20)) {
            throw new VerbsException("CQ depth must be 1..1M, was " + depth);
        }
        int capacity = ShmRing.capacityFor(depth);
        if (cqList.size() >= quota.cqs() || cqEntries + capacity > quota.cqEntries()) {
            throw new QuotaRefused(false, "over this client's quota: " + cqList.size() + " CQs of " + cqEntries + " entries held, a CQ of "
                + capacity + " asked; at most " + quota.cqs() + " CQs and " + quota.cqEntries() + " entries");
        }
        totals.takeCq(capacity);
        long at;
        ShmRing ring;
        CompletionQueue embedded;
        try {
            at = carveRing(capacity, CompletionRecord.BYTES);
            ring = ring(at, capacity, CompletionRecord.BYTES);
        } catch (RuntimeException e) {
            totals.giveCq(capacity);
            throw e;
        }
        try {
            embedded = context.createCq(depth);
        } catch (RuntimeException e) {
            releaseRing(ring);
            totals.giveCq(capacity);
            throw e;
        }
        int handle = nextCq++;
        ServedCq cq = new ServedCq(handle, embedded, ring);
        cqEntries += capacity;
        cqs.put(handle, cq);
        cqList.add(cq);
        return new HandleReply(handle, 0, at, capacity, 0, 0);
    }

    HandleReply createQp(CreateQpRequest r) {
        ProtectionDomain pd = pd(r.pd());
        // An XRC_SEND QP has no receive CQ, an XRC_RECV QP no CQ at all: 0 names none.
        ServedCq send = r.sendCq() == 0 ? null : cq(r.sendCq());
        ServedCq recv = r.recvCq() == 0 ? null : cq(r.recvCq());
        if ((send == null || recv == null) && r.qpType() != QpType.SRC.ordinal()) {
            throw new VerbsException("a QP of type " + r.qpType() + " needs a send and a receive CQ");
        }
        if (r.qpType() < 0 || r.qpType() >= QpType.values().length) {
            throw new VerbsException("no QP type " + r.qpType());
        }
        QpType type = QpType.values()[r.qpType()];
        if (r.maxInlineData() > SendRecord.MAX_INLINE) {
            throw new VerbsException("max_inline_data " + r.maxInlineData() + ": an attached QP takes at most " + SendRecord.MAX_INLINE
                + " bytes inline (what a send record carries)");
        }
        int sqCapacity = ShmRing.capacityFor(Math.max(1, r.maxSendWr()));
        int rqCapacity = ShmRing.capacityFor(Math.max(1, r.maxRecvWr()));
        if (qpList.size() >= quota.qps() || qpEntries + sqCapacity + rqCapacity > quota.qpEntries()) {
            throw new QuotaRefused(false, "over this client's quota: " + qpList.size() + " QPs and " + qpEntries
                + " work request entries held, " + (sqCapacity + rqCapacity) + " asked;"
                + " at most " + quota.qps() + " QPs and " + quota.qpEntries() + " entries");
        }
        totals.takeQp(sqCapacity + rqCapacity);
        long sqAt;
        ShmRing sq;
        long rqAt;
        try {
            sqAt = carveRing(sqCapacity, SendRecord.BYTES);
            sq = ring(sqAt, sqCapacity, SendRecord.BYTES);
        } catch (RuntimeException e) {
            totals.giveQp(sqCapacity + rqCapacity);
            throw e;
        }
        try {
            rqAt = carveRing(rqCapacity, RecvRecord.BYTES);
        } catch (RuntimeException e) {
            releaseRing(sq);
            totals.giveQp(sqCapacity + rqCapacity);
            throw e;
        }
        ShmRing rq = ring(rqAt, rqCapacity, RecvRecord.BYTES);
        QueuePair qp;
        try {
            qp = newQueuePair(r, type, pd, send, recv);
        } catch (RuntimeException e) { // refused (bad attributes, an unknown SRQ or domain): its rings and entries go back
            releaseRing(sq);
            releaseRing(rq);
            totals.giveQp(sqCapacity + rqCapacity);
            throw e;
        }
        qpEntries += sqCapacity + rqCapacity;
        ServedQp served = new ServedQp(this, qp, sq, rq, send, recv);
        qps.put(qp.qpNum(), served);
        qpList.add(served);
        return new HandleReply(qp.qpNum(), QpState.RESET.ordinal(), sqAt, sqCapacity, rqAt, rqCapacity);
    }

    private QueuePair newQueuePair(CreateQpRequest r, QpType type, ProtectionDomain pd, ServedCq send, ServedCq recv) {
        int sge = Math.min(r.maxSendSge(), SendRecord.MAX_SGE);
        QueuePair qp;
        if (type == QpType.SRC) {
            qp = r.xrcType() == XrcQpType.XRC_SEND.ordinal() && send != null
                ? pd.createQueuePair(QpInitAttributes.xrcSend(send.cq).maxSendWr(r.maxSendWr()).maxSendSge(sge)
                    .maxInlineData(r.maxInlineData()).build())
                : r.xrcType() == XrcQpType.XRC_RECV.ordinal() ? xrcd(r.xrcd()).createRecvQueuePair()
                : throwing("an SRC QP is XRC_SEND or XRC_RECV, was " + r.xrcType());
        } else if (r.srq() != 0) {
            qp = pd.createQueuePair(QpInitAttributes.builder(type).sendCq(send.cq).recvCq(recv.cq).srq(srq(r.srq()).srq)
                .maxSendWr(r.maxSendWr()).maxSendSge(sge).maxInlineData(r.maxInlineData()).build());
        } else {
            qp = pd.createQueuePair(QpInitAttributes.builder(type).sendCq(send.cq).recvCq(recv.cq).maxSendWr(r.maxSendWr())
                .maxRecvWr(r.maxRecvWr()).maxSendSge(sge).maxInlineData(r.maxInlineData()).build());
        }
        return qp;
    }

    boolean ownsQp(int qpn) {
        return qps.containsKey(qpn);
    }

    private static QueuePair throwing(String message) {
        throw new VerbsException(message);
    }

    /** The inline staging buffers of the client's QPs (tests). */
    List<MemorySegment> inlineBuffers() {
        return qpList.stream().map(ServedQp::inlineBytes).toList();
    }

    /** What the client may make (its CM ids check theirs). */
    ClientQuota quota() {
        return quota;
    }

    /** Refuses a create past the client's quota, before anything is made. */
    static void overQuota(boolean over, String what, long held, long quota) {
        if (over) {
            throw new QuotaRefused(false, "over this client's quota: " + held + " " + what + " held, at most " + quota);
        }
    }

    /** CREATE_SRQ: a basic SRQ, or an XRC SRQ of one of the client's domains, and its receive ring. */
    HandleReply createSrq(CreateSrqRequest r) {
        ProtectionDomain pd = pd(r.pd());
        int capacity = ShmRing.capacityFor(Math.max(1, r.maxWr()));
        if (srqList.size() >= quota.srqs() || qpEntries + capacity > quota.qpEntries()) {
            throw new QuotaRefused(false, "over this client's quota: " + srqList.size() + " SRQs and " + qpEntries
                    + " work request entries held, "
                + capacity + " asked; at most " + quota.srqs() + " SRQs and " + quota.qpEntries() + " entries");
        }
        totals.takeQp(capacity);
        long at;
        try {
            at = carveRing(capacity, RecvRecord.BYTES);
        } catch (RuntimeException e) {
            totals.giveQp(capacity);
            throw e;
        }
        ShmRing ring = ring(at, capacity, RecvRecord.BYTES);
        ServedCq cq;
        SharedReceiveQueue srq;
        try {
            cq = r.xrcd() == 0 ? null : cq(r.cq());
            srq = r.xrcd() == 0 ? pd.createSrq(r.maxWr(), r.maxSge(), r.limit())
                : pd.createXrcSrq(xrcd(r.xrcd()), cq.cq, r.maxWr(), r.maxSge(), r.limit());
        } catch (RuntimeException e) {
            releaseRing(ring);
            totals.giveQp(capacity);
            throw e;
        }
        qpEntries += capacity;
        ServedSrq served = new ServedSrq(this, srq, ring, cq);
        srqs.put(srq.srqNum(), served);
        srqList.add(served);
        return new HandleReply(srq.srqNum(), r.xrcd() == 0 ? 0 : srq.srqNumber(), at, capacity, 0, 0);
    }

    /** A call on one of the client's SRQs: modify its limit, or ask its limit or its receives waiting. */
    HandleReply srq(SrqRequest r) {
        SharedReceiveQueue srq = srq(r.srq()).srq;
        int answer = switch (r.op()) {
            case SrqRequest.MODIFY -> {
                srq.modify(r.value());
                yield r.value();
            }
            case SrqRequest.LIMIT -> srq.limit();
            case SrqRequest.POSTED -> srq.receivesPosted();
            default -> throw new VerbsException("no SRQ operation " + r.op());
        };
        return new HandleReply(r.srq(), answer, 0, 0, 0, 0);
    }

    /** OPEN_XRCD: a new XRC domain of the client's. */
    HandleReply openXrcd() {
        overQuota(xrcds.size() >= quota.xrcds(), "XRC domains", xrcds.size(), quota.xrcds());
        XrcDomain d = context.openXrcDomain();
        int handle = nextXrcd++;
        xrcds.put(handle, d);
        return new HandleReply(handle, d.number(), 0, 0, 0, 0);
    }

    boolean ownsSrq(int srqn) {
        return srqs.containsKey(srqn);
    }

    boolean ownsAh(int ah) {
        return ah > 0 && ah < ahs.length && ahs[ah] != null;
    }

    HandleReply modifyQp(ModifyQpRequest r) {
        QueuePair qp = qp(r.qpn()).qp;
        try {
            if (r.simple()) {
                qp.modify(ModifyQpRequest.state(r.values()[0]), r.values()[1]);
            } else {
                var attributes = r.toAttributes();
                if (attributes.has(QpAttributes.ADDRESS_HANDLE) && !ownsAh(attributes.addressHandle())) {
                    throw new VerbsException("address handle " + attributes.addressHandle() + " is not one of this context's");
                }
                qp.modify(attributes);
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new VerbsException(e.getMessage());
        }
        return new HandleReply(qp.qpNum(), qp.state().ordinal(), 0, 0, 0, 0);
    }

    /** QUERY_QP: the QP's attributes as the dataplane's QP has them now (an RC QP's state after an error included). */
    QpAttributesReply queryQp(QueryQpRequest r) {
        QueuePair qp = qp(r.qpn()).qp;
        return new QpAttributesReply(ModifyQpRequest.of(qp.qpNum(), qp.query()));
    }

    /** The client's QP {@code qpn} (for its CM ids to drive), or "no such QP". */
    QueuePair queuePair(int qpn) {
        return qp(qpn).qp;
    }

    /** A call on the client's CM ids, made on the connection manager of its port. */
    HandleReply cm(CmRequest r) {
        if (cm == null) {
            cm = new ServedCm(this);
        }
        return cm.call(r);
    }

    /** Runs the CM for the client's ids and sends it their events; returns how many. */
    int pumpCm(Consumer<CmEventMessage> send) {
        return cm == null ? 0 : cm.pump(send);
    }

    HandleReply createAh(CreateAhRequest r) {
        overQuota(ahCount >= quota.ahs(), "address handles", ahCount, quota.ahs());
        AddressHandle ah = pd(r.pd()).createAddressHandle(r.mac(), r.ip(), r.udpPort());
        int n = ah.handle();
        if (n >= ahs.length) {
            ahs = Arrays.copyOf(ahs, Math.max(ahs.length * 2, n + 1));
        }
        ahs[n] = ah;
        ahCount++;
        return HandleReply.of(n);
    }

    /** The client's address handle {@code n}, or null (a post naming it is refused by the verbs checks). */
    AddressHandle addressHandle(int n) {
        return n > 0 && n < ahs.length ? ahs[n] : null;
    }

    HandleReply registerMr(RegisterMrRequest r) {
        overQuota(mrs.size() >= quota.mrs(), "memory regions", mrs.size(), quota.mrs());
        ProtectionDomain pd = pd(r.pd());
        if (r.poolOffset() < 0 || r.length() <= 0 || r.poolOffset() > pool.byteSize() - r.length()) {
            throw new VerbsException("region [" + r.poolOffset() + ", +" + r.length() + ") is not inside this context's pool of "
                + pool.byteSize() + " bytes");
        }
        MemoryRegion mr = pd.registerMemoryAt(pool.asSlice(r.poolOffset(), r.length()), r.iova(), r.access());
        mrs.put(mr.lkey(), mr);
        return HandleReply.of(mr.lkey());
    }

    HandleReply destroy(DestroyRequest r) {
        switch (r.kind()) {
            case DestroyRequest.QP -> {
                ServedQp qp = qp(r.handle());
                qp.qp.destroy();
                qp.close();
                qps.remove(r.handle());
                qpList.remove(qp);
                releaseRing(qp.sq);
                releaseRing(qp.rq);
                qpEntries -= qp.sq.capacity() + qp.rq.capacity();
                totals.giveQp(qp.sq.capacity() + qp.rq.capacity());
            }
            case DestroyRequest.AH -> {
                if (!ownsAh(r.handle())) {
                    throw new VerbsException("no address handle " + r.handle() + " in this context");
                }
                ahs[r.handle()].destroy();
                ahs[r.handle()] = null;
                ahCount--;
            }
            case DestroyRequest.MR -> {
                MemoryRegion mr = mrs.remove(r.handle());
                if (mr == null) {
                    throw new VerbsException("no memory region with lkey 0x" + Integer.toHexString(r.handle()) + " in this context");
                }
                mr.deregister();
            }
            case DestroyRequest.CQ -> {
                ServedCq cq = cq(r.handle());
                checkUnused(cq);
                cq.cq.destroy();
                cqs.remove(r.handle());
                cqList.remove(cq);
                releaseRing(cq.ring);
                cqEntries -= cq.ring.capacity();
                totals.giveCq(cq.ring.capacity());
            }
            case DestroyRequest.SRQ -> {
                ServedSrq srq = srq(r.handle());
                srq.srq.destroy();
                srqs.remove(r.handle());
                srqList.remove(srq);
                releaseRing(srq.ring);
                qpEntries -= srq.ring.capacity();
                totals.giveQp(srq.ring.capacity());
            }
            case DestroyRequest.XRCD -> {
                xrcd(r.handle()).close();
                xrcds.remove(r.handle());
            }
            case DestroyRequest.PD -> {
                pd(r.handle()).destroy();
                pds.remove(r.handle());
            }
            default -> throw new VerbsException("no object kind " + r.kind());
        }
        return HandleReply.of(r.handle());
    }

    /**
     * The start of a pass: reads every index the client writes that this pass acts on, once — each
     * completion ring's consumer index (the room to write completions into) and each send ring's
     * producer index (the sends to take) — and checks them. Returns {@link ShmRing#CORRUPT} when
     * one is impossible, else 0.
     */
    int beginPass() {
        for (int i = 0; i < cqList.size(); i++) {
            if (cqList.get(i).beginPass() == ShmRing.CORRUPT) {
                return ShmRing.CORRUPT;
            }
        }
        long sends = 0;
        int budget = PASS_BUDGET;
        for (int i = 0; i < qpList.size(); i++) {
            ServedQp qp = qpList.get(i);
            if (qp.snapshotSends(budget) == ShmRing.CORRUPT) {
                return ShmRing.CORRUPT;
            }
            budget -= qp.sendsReady();
            sends += qp.sendFill;
        }
        sendFill = sends;
        sendHighWater = Math.max(sendHighWater, sends);
        return 0;
    }

    /**
     * The client's receives, from its QPs' and SRQs' receive rings into the transport; returns the
     * records taken, or {@link ShmRing#CORRUPT}.
     */
    int pumpReceives() {
        int work = 0;
        long receives = 0;
        receivesLeft = false;
        for (int i = 0; i < qpList.size(); i++) {
            ServedQp qp = qpList.get(i);
            int n = qp.pumpReceives(PASS_BUDGET - work);
            if (n == ShmRing.CORRUPT) {
                return n;
            }
            work += n;
            receives += qp.recvFill;
            receivesLeft |= n < qp.recvFill && work == PASS_BUDGET;
        }
        for (int i = 0; i < srqList.size(); i++) {
            ServedSrq srq = srqList.get(i);
            int n = srq.pump(PASS_BUDGET - work);
            if (n == ShmRing.CORRUPT) {
                return n;
            }
            work += n;
            receives += srq.fill;
            receivesLeft |= n < srq.fill && work == PASS_BUDGET;
        }
        recvFill = receives;
        recvHighWater = Math.max(recvHighWater, receives);
        return work;
    }

    /**
     * The sends {@link #beginPass} found, into the transport; returns how many were taken. None
     * while receives the budget left in the client's rings wait: one of them may be what a send
     * of this pass is answered into.
     */
    int pumpSends() {
        if (receivesLeft) {
            for (int i = 0; i < qpList.size(); i++) {
                qpList.get(i).holdSends();
            }
            return 0;
        }
        int work = 0;
        for (int i = 0; i < qpList.size(); i++) {
            work += qpList.get(i).pumpSends();
        }
        return work;
    }

    /**
     * The completions the transport has made, into the client's completion rings (as much as each
     * has room this pass); returns how many.
     */
    int pumpCompletions() {
        int work = 0;
        long completions = 0;
        for (int i = 0; i < cqList.size(); i++) {
            ServedCq cq = cqList.get(i);
            work += cq.pump();
            completions += cq.fill;
        }
        completionFill = completions;
        completionHighWater = Math.max(completionHighWater, completions);
        return work;
    }

    /** The ring occupancy, in {@link AttachCounters#CLIENT_NAMES}' order, into {@code out} (no allocation). */
    void ringOccupancy(long[] out) {
        out[0] = sendFill;
        out[1] = sendHighWater;
        out[2] = recvFill;
        out[3] = recvHighWater;
        out[4] = completionFill;
        out[5] = completionHighWater;
    }

    /**
     * The client is gone (closed, died, or dropped): its QPs are destroyed (their pending work
     * flushed; a peer's new sends to them get BAD_DEST_QP from the transport), then its address
     * handles, regions, CQs and PDs, and its shared file is unlinked (the mapping goes when nothing
     * holds it). Returns how many objects were reclaimed.
     */
    int reclaim() {
        if (totals != null) { // first: a destroy below that throws must not keep the entries from every other client for good
            totals.giveCq(cqEntries);
            totals.giveQp(qpEntries);
            cqEntries = 0;
            qpEntries = 0;
        }
        int n = 0;
        if (cm != null) { // first: a live connection's DREQ goes out while its QP still exists
            n += cm.reclaim();
            cm = null;
        }
        for (ServedQp qp : qpList) {
            qp.qp.destroy();
            qp.close();
            n++;
        }
        qpList.clear();
        qps.clear();
        for (ServedSrq srq : srqList) {
            srq.srq.destroy();
            n++;
        }
        srqList.clear();
        srqs.clear();
        for (XrcDomain d : xrcds.values()) {
            d.close();
            n++;
        }
        xrcds.clear();
        for (int i = 0; i < ahs.length; i++) {
            if (ahs[i] != null) {
                ahs[i].destroy();
                ahs[i] = null;
                n++;
            }
        }
        for (MemoryRegion mr : mrs.values()) {
            mr.deregister();
            n++;
        }
        mrs.clear();
        for (ServedCq cq : cqList) {
            cq.cq.destroy();
            n++;
        }
        cqList.clear();
        cqs.clear();
        for (ProtectionDomain pd : pds.values()) {
            pd.destroy();
            n++;
        }
        pds.clear();
        ahCount = 0;
        closeFile();
        if (shmFile != null) {
            try {
                Files.deleteIfExists(shmFile);
            } catch (IOException e) {
                System.getLogger(ClientSession.class.getName()).log(System.Logger.Level.WARNING, "could not remove " + shmFile, e);
            }
        }
        context = null;
        return n;
    }

    /**
     * A span of the ring area for a ring of {@code capacity} records, its indexes zeroed: the span
     * may have held a destroyed object's ring, and a stale producer index would be read as records.
     */
    private long carveRing(int capacity, int recordSize) {
        long at = ringSpace.allocate(ShmRing.bytes(capacity, recordSize));
        if (at < 0) {
            throw new VerbsException("the context's ring area (" + rings.byteSize() + " bytes, " + ringSpace.used() + " in use) is full:"
                + " destroy QPs, CQs or SRQs it no longer needs, or open it with a larger ContextConfig.attachedRingBytes");
        }
        rings.asSlice(at, ShmRing.RECORDS_OFFSET).fill((byte) 0);
        return at;
    }

    /** A CQ a QP or an XRC SRQ still completes into is busy (EBUSY in verbs): its ring would be handed out while still written. */
    private void checkUnused(ServedCq cq) {
        for (ServedQp qp : qpList) {
            if (qp.completesInto(cq)) {
                throw new VerbsException("EBUSY: CQ " + cq.handle + " is in use by QP " + qp.qp.qpNum() + ": destroy the QP first");
            }
        }
        for (ServedSrq srq : srqList) {
            if (srq.completesInto(cq)) {
                throw new VerbsException("EBUSY: CQ " + cq.handle + " is in use by an XRC SRQ: destroy the SRQ first");
            }
        }
    }

    private ShmRing ring(long at, int capacity, int recordSize) {
        return new ShmRing(rings.asSlice(at, ShmRing.bytes(capacity, recordSize)), capacity, recordSize);
    }

    /** Gives a destroyed object's ring back to the ring area (nothing reads or writes it any more: its object is gone on both sides). */
    private void releaseRing(ShmRing ring) {
        ringSpace.free(ring.segment().address() - rings.address(), ring.segment().byteSize());
    }

    private ProtectionDomain pd(int handle) {
        ProtectionDomain pd = pds.get(handle);
        if (pd == null) {
            throw new VerbsException("no protection domain " + handle + " in this context");
        }
        return pd;
    }

    private ServedCq cq(int handle) {
        ServedCq cq = cqs.get(handle);
        if (cq == null) {
            throw new VerbsException("no completion queue " + handle + " in this context");
        }
        return cq;
    }

    private ServedSrq srq(int srqn) {
        ServedSrq srq = srqs.get(srqn);
        if (srq == null) {
            throw new VerbsException("no SRQ " + srqn + " in this context");
        }
        return srq;
    }

    private XrcDomain xrcd(int handle) {
        XrcDomain d = xrcds.get(handle);
        if (d == null) {
            throw new VerbsException("no XRC domain " + handle + " in this context");
        }
        return d;
    }

    private ServedQp qp(int qpn) {
        ServedQp qp = qps.get(qpn);
        if (qp == null) {
            throw new VerbsException("no QP " + qpn + " in this context");
        }
        return qp;
    }
}
