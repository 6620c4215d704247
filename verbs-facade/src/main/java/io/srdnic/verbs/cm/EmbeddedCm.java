package io.srdnic.verbs.cm;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.XrcQpType;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The CM protocol run in this process: the context's management QP (UD at QPN 1, Q_Key
 * {@link CmMessage#QKEY}), the checks and moves of each id's calls, and the messages between the
 * ids and their peers. Each message goes to the id it names ({@link CmId#onMessage}), or is
 * answered for ids that do not exist; the ids' timers send again what timed out. The answers to
 * strangers go out on at most {@link #MAX_REPLY_HANDLES} address handles.
 */
final class EmbeddedCm implements CmProtocol {
    static final int SLOT = 512;
    static final int RECV_SLOTS = 128;
    static final int SEND_SLOTS = 64;
    static final int MAX_REPLY_HANDLES = 64;

    private final ConnectionManager cm;
    private final Context context;
    final CmMessage tx = new CmMessage();
    private final CmMessage rx = new CmMessage();
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final MemoryRegion mr;
    private final WorkCompletion[] wcs = CompletionQueue.array(32);
    private final SendWr sendWr = new SendWr();
    private final RecvWr recvWr = new RecvWr();
    private final int[] freeSend = new int[SEND_SLOTS];
    private int freeSendCount;
    private final List<AddressHandle> replyHandles = new ArrayList<>();
    private final int pathMtu;

    EmbeddedCm(ConnectionManager cm) {
        this.cm = cm;
        this.context = cm.context;
        this.pd = context.allocPd();
        this.sendCq = context.createCq(SEND_SLOTS);
        this.recvCq = context.createCq(RECV_SLOTS);
        this.qp = pd.createManagementQueuePair(sendCq, recvCq, SEND_SLOTS, RECV_SLOTS);
        // The context's own memory, freed when the context closes (after its transport stops), not
        // when a GC finds it unreachable: a dataplane or an application that opens and closes
        // contexts does not keep each one's 96 KiB of CM slots until then.
        this.mr = pd.allocateRegion((long) (RECV_SLOTS + SEND_SLOTS) * SLOT, Access.LOCAL_WRITE);
        qp.modify(QpState.INIT, CmMessage.QKEY);
        for (int slot = 0; slot < RECV_SLOTS; slot++) {
            repost(slot);
        }
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        for (int i = SEND_SLOTS - 1; i >= 0; i--) {
            freeSend[freeSendCount++] = i;
        }
        int mtu = 4096;
        while (mtu > 256 && mtu > context.mtu()) {
            mtu >>= 1;
        }
        this.pathMtu = mtu;
    }

    /** The message slots' memory (tests: whether it is freed with the context). */
    MemorySegment slots() {
        return mr.segment();
    }

    int pathMtu() {
        return pathMtu;
    }

    // ---------------------------------------------------------------- the ids' calls

    @Override
    public void created(CmId id, int portSpace, int xrcOrdinal) {
        // nothing to make elsewhere: the id is this manager's
    }

    @Override
    public void bind(CmId id, int port) {
        id.expect(CmState.IDLE, "bind");
        if (port < 0 || port > 0xFFFF) {
            throw new VerbsException("a port is 0..65535, was " + port);
        }
        int p = port == 0 ? cm.ephemeralPort() : port;
        for (CmId other : cm.ids()) {
            if (other != id && !other.passive && other.localPort == p && other.state != CmState.DESTROYED) {
                throw new VerbsException("port " + p + " is in use by another id on this device (EADDRINUSE; on a dataplane"
                    + " the CM is the port's, shared by its applications: another one may hold it)");
            }
        }
        id.localPort = p;
        id.serviceId = CmId.serviceId(id.portSpace, p);
        id.state = CmState.BOUND;
    }

    @Override
    public void listen(CmId id, int backlog) {
        id.expect(CmState.BOUND, "listen (bind first)");
        if (id.xrcType == XrcQpType.XRC_SEND) {
            throw new VerbsException("an XRC_SEND id connects; the listener of an XRC connection is the XRC_RECV side "
                + "(CmId.create(channel, context, XrcQpType.XRC_RECV))");
        }
        if (backlog < 1) {
            throw new VerbsException("the backlog must be at least 1, was " + backlog);
        }
        id.backlog = backlog;
        id.state = CmState.LISTEN;
    }

    @Override
    public void resolveAddr(CmId id, int ip, int port) {
        if (id.state == CmState.IDLE) {
            bind(id, 0);
        }
        id.expect(CmState.BOUND, "resolveAddr");
        if (ip == context.ip()) {
            throw new VerbsException("cannot connect to this device's own address");
        }
        if (port < 1 || port > 0xFFFF) {
            throw new VerbsException("a destination port is 1..65535, was " + port);
        }
        id.remoteIp = ip;
        id.remotePort = port;
        id.remoteUdpPort = context.udpPort(); // one SRD port per fabric
        id.state = CmState.ADDR_RESOLVED;
        id.report(CmEventType.ADDR_RESOLVED);
    }

    @Override
    public void resolveRoute(CmId id) {
        id.expect(CmState.ADDR_RESOLVED, "resolveRoute (resolveAddr first)");
        id.state = CmState.ROUTE_RESOLVED;
        id.report(CmEventType.ROUTE_RESOLVED);
    }

    @Override
    public void attachQp(CmId id, QueuePair queuePair) {
        QpBringUp.init(queuePair);
        id.qp = queuePair;
    }

    @Override
    public void connect(CmId id, ConnParam p) {
        id.expect(CmState.ROUTE_RESOLVED, "connect (resolveAddr and resolveRoute first)");
        if (id.xrcType == XrcQpType.XRC_RECV) {
            throw new VerbsException("an XRC_RECV id is the passive side: the peer's XRC_SEND id connects to it (listen instead)");
        }
        id.checkQp();
        p.checkPrivateData(ConnParam.CONNECT_PRIVATE_DATA, "a connect request");
        id.keepPrivateData(p.privateData, 0, p.privateDataLength);
        id.responderResources = p.responderResources;
        id.initiatorDepth = p.initiatorDepth;
        id.retryCount = p.retryCount;
        id.rnrRetryCount = p.rnrRetryCount;
        id.pathMtu = pathMtu;
        id.serviceId = CmId.serviceId(id.portSpace, id.remotePort);
        id.localCommId = cm.newCommId();
        id.state = CmState.REQ_SENT;
        id.send(CmMessage.REQ);
        id.arm(cm.now());
    }

    @Override
    public void accept(CmId id, ConnParam p) {
        id.expect(CmState.REQ_RCVD, "accept (only a CONNECT_REQUEST's id)");
        id.checkQp();
        p.checkPrivateData(ConnParam.ACCEPT_PRIVATE_DATA, "an accept");
        id.keepPrivateData(p.privateData, 0, p.privateDataLength);
        id.responderResources = Math.min(p.responderResources, id.peerInitiatorDepth);
        id.initiatorDepth = Math.min(p.initiatorDepth, id.peerResponderResources);
        id.rnrRetryCount = p.rnrRetryCount;
        id.path = id.qpPath();
        QpBringUp.connect(id.qp, id.path.handle(), id.pathMtu, id.peerQpn, id.peerPsn, id.responderResources, id.minRnrTimer,
            id.startingPsn, id.ackTimeout, id.peerRetryCount, id.peerRnrRetryCount, id.initiatorDepth);
        id.answered();
        id.state = CmState.REP_SENT;
        id.send(CmMessage.REP);
        id.arm(cm.now());
    }

    @Override
    public void reject(CmId id, byte[] data, int offset, int length) {
        id.expect(CmState.REQ_RCVD, "reject (only a CONNECT_REQUEST's id)");
        ConnParam.checkRejectData(length);
        id.keepPrivateData(data, offset, length);
        id.answered();
        id.sendReject(RejectReason.CONSUMER_DEFINED);
        id.state = CmState.DONE;
    }

    @Override
    public void disconnect(CmId id) {
        if (id.state == CmState.DREQ_SENT || id.state == CmState.TIMEWAIT || id.state == CmState.DONE) {
            return;
        }
        if (id.state != CmState.ESTABLISHED && id.state != CmState.REP_SENT) {
            throw new VerbsException("disconnect needs a connection, the id is in " + id.state);
        }
        QpBringUp.error(id.qp);
        id.privateLength = 0;
        id.state = CmState.DREQ_SENT;
        id.send(CmMessage.DREQ);
        id.arm(cm.now());
    }

    @Override
    public void destroy(CmId id, boolean deviceGone) {
        if (!deviceGone && id.state == CmState.REQ_RCVD) {
            id.answered();
            id.sendReject(RejectReason.CONSUMER_DEFINED);
        } else if (!deviceGone && (id.state == CmState.ESTABLISHED || id.state == CmState.REP_SENT)) {
            QpBringUp.error(id.qp);
            id.send(CmMessage.DREQ);
        }
        if (id.path != null && !deviceGone && !id.path.isDestroyed()) {
            id.path.destroy();
        }
    }

    @Override
    public void setTimer(CmId id, int op, int code) {
        // kept in the id: the QP's moves on connect or accept use it
    }

    // ---------------------------------------------------------------- the management QP

    /** One round: reads the management QP's completions, handles each message, fires the timers. Returns the messages handled. */
    @Override
    public int progress() {
        context.progress();
        return handleCompleted(true);
    }

    /**
     * As {@link #progress}, on what the context's cycles have already made, running none: for the
     * dataplane process, whose lcore runs its contexts' cycles itself (a CQ poll runs one more
     * whenever the CQ is empty).
     */
    int progressCompleted() {
        return handleCompleted(false);
    }

    private int handleCompleted(boolean polls) {
        int n;
        while ((n = polls ? sendCq.poll(wcs) : sendCq.pollCompleted(wcs, wcs.length)) > 0) {
            for (int i = 0; i < n; i++) {
                freeSend[freeSendCount++] = (int) wcs[i].wrId();
            }
        }
        int work = 0;
        long now = cm.now();
        while ((n = polls ? recvCq.poll(wcs) : recvCq.pollCompleted(wcs, wcs.length)) > 0) {
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                int slot = (int) wc.wrId();
                if (wc.ok()) {
                    onMessage(slot, wc.byteLength(), wc.sourceIp(), wc.sourceQpn(), now);
                } else {
                    cm.counters.receiveErrors++;
                }
                repost(slot);
                work++;
            }
        }
        List<CmId> ids = cm.ids();
        for (int i = 0; i < ids.size(); i++) {
            ids.get(i).onTimer(now);
        }
        return work;
    }

    private void onMessage(int slot, int length, int sourceIp, int sourceQpn, long now) {
        CmCounters counters = cm.counters;
        rx.wrap(mr.segment(), (long) slot * SLOT);
        int type = rx.parse(length);
        if (type < 0) {
            counters.malformed[-type]++;
            return;
        }
        if (rx.ip() != sourceIp || sourceQpn != TransportDevice.MANAGEMENT_QPN) {
            counters.wrongSender++; // a message names the sender it came from: its answers go there
            return;
        }
        counters.received[type]++;
        if (type == CmMessage.REQ) {
            onRequest(now);
            return;
        }
        CmId id = cm.byLocalCommId(rx.remoteCommId());
        if (id == null || id.remoteIp != sourceIp || (id.remoteCommId != 0 && id.remoteCommId != rx.localCommId())) {
            onUnknown(type);
            return;
        }
        id.onMessage(type, rx, now);
    }

    private void onRequest(long now) {
        CmCounters counters = cm.counters;
        List<CmId> ids = cm.ids();
        for (int i = 0; i < ids.size(); i++) {
            CmId id = ids.get(i);
            if (id.passive && id.remoteIp == rx.ip() && id.remoteCommId == rx.localCommId()) {
                id.onDuplicateRequest();
                return;
            }
        }
        CmId listener = listenerFor(rx.serviceId());
        if (listener == null) {
            counters.noListener++;
            answerStranger(CmMessage.REJ, RejectReason.NO_LISTENER);
            return;
        }
        if (rx.transport() != listener.transport()) {
            counters.wrongTransport++; // rdma_cm's cma_check_req_qp_type: the listener takes only its own QP type
            answerStranger(CmMessage.REJ, RejectReason.INVALID_TRANSPORT_TYPE);
            return;
        }
        if (listener.pendingRequests >= listener.backlog) {
            counters.backlogFull++;
            answerStranger(CmMessage.REJ, RejectReason.NO_RESOURCES);
            return;
        }
        CmId child = CmId.requested(listener, rx, cm.newCommId(), pathMtu);
        cm.add(child);
        child.reportRequest(rx);
    }

    /**
     * A message for no id of ours: a REP gets a REJ (the requester must not think it is connected),
     * a DREQ its DREP; the rest is dropped.
     */
    private void onUnknown(int type) {
        cm.counters.unknownCommId++;
        if (type == CmMessage.REP) {
            answerStranger(CmMessage.REJ, RejectReason.INVALID_COMM_ID);
        } else if (type == CmMessage.DREQ) {
            answerStranger(CmMessage.DREP, 0);
        }
    }

    /** Answers the message in {@code rx} from an id that does not exist (a fresh communication id). */
    private void answerStranger(int type, int reason) {
        int slot = begin();
        if (slot < 0) {
            return;
        }
        long mac = rx.mac();
        int ip = rx.ip();
        int port = rx.udpPort();
        // As the id that is gone, when the message named one: the peer matches the answer to its own id by both numbers.
        int as = rx.remoteCommId() != 0 ? rx.remoteCommId() : cm.newCommId();
        int length = tx.write(type, as, rx.localCommId(), rx.serviceId(), 0);
        tx.sender(context.mac(), context.ip(), context.udpPort()).rejectReason(reason);
        finish(slot, type, length, mac, ip, port);
    }

    private CmId listenerFor(long serviceId) {
        List<CmId> ids = cm.ids();
        for (int i = 0; i < ids.size(); i++) {
            CmId id = ids.get(i);
            if (id.state == CmState.LISTEN && id.serviceId == serviceId) {
                return id;
            }
        }
        return null;
    }

    /** A free send slot with {@link #tx} wrapped over it, or -1 (counted: the timer sends it again). */
    int begin() {
        if (freeSendCount == 0) {
            cm.counters.sendSlotsExhausted++;
            return -1;
        }
        int slot = freeSend[--freeSendCount];
        tx.wrap(mr.segment(), (long) (RECV_SLOTS + slot) * SLOT);
        return slot;
    }

    /** Sends the {@code length} bytes written into {@code slot} to the management QP at (mac, ip, port). */
    void finish(int slot, int type, int length, long mac, int ip, int port) {
        sendWr.wrId(slot).opcode(SendWr.OP_SEND).flags(SendWr.SIGNALED).numSge(1)
            .destination(replyHandle(mac, ip, port), TransportDevice.MANAGEMENT_QPN, CmMessage.QKEY);
        sendWr.sge(0).set(mr, (long) (RECV_SLOTS + slot) * SLOT, length);
        if (qp.postSend(sendWr) != 0) {
            freeSend[freeSendCount++] = slot;
            cm.counters.sendSlotsExhausted++;
            return;
        }
        cm.counters.sent[type]++;
    }

    private AddressHandle replyHandle(long mac, int ip, int port) {
        for (int i = 0; i < replyHandles.size(); i++) {
            AddressHandle ah = replyHandles.get(i);
            if (ah.mac() == mac && ah.ip() == ip && ah.udpPort() == port) {
                return ah;
            }
        }
        if (replyHandles.size() == MAX_REPLY_HANDLES) {
            replyHandles.remove(0).destroy(); // the oldest: a UD send that used it has left already
        }
        AddressHandle ah = pd.createAddressHandle(mac, ip, port);
        replyHandles.add(ah);
        return ah;
    }

    private void repost(int slot) {
        recvWr.wrId(slot).sge().set(mr, (long) slot * SLOT, SLOT);
        qp.postRecv(recvWr);
    }
}
