package io.srdnic.verbs.cm;

import io.srdnic.pmd.MacAddress;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.XrcQpType;
import io.srdnic.verbs.attach.control.CmRequest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A CM id (rdma_cm_id): one end of a connection, or a listener. Active side: {@link #create},
 * {@link #resolveAddr}, {@link #resolveRoute}, {@link #createQp}, {@link #connect}; ESTABLISHED,
 * REJECTED or UNREACHABLE follows. Passive side: {@link #bind}, {@link #listen}; each request comes
 * as CONNECT_REQUEST with a new id to {@link #accept} or {@link #reject}. Either side
 * {@link #disconnect}s (DISCONNECTED, then TIMEWAIT_EXIT) and {@link #destroy}s. The CM drives the
 * id's QP: INIT when it is attached, RTR and RTS on accept or when the REP comes, ERROR at the
 * end. The QP is RC, or for an id made with an {@link XrcQpType} (port space {@link #PS_IB}, as
 * rdma_cm connects XRC) an XRC_SEND QP on the active side and an XRC_RECV QP on the passive side;
 * a request of the other type than the listener's is rejected ({@link RejectReason#INVALID_TRANSPORT_TYPE}). Misuse (a call in the wrong
 * state, private data over its limit) throws a VerbsException that
 * says what to do; what the network does is reported as events. Each call goes to the context's
 * {@link CmProtocol}, chosen once: the protocol run here ({@link EmbeddedCm}, whose messages and
 * timers drive this id's state machine below) or the dataplane's, through {@link AttachedCm}.
 */
public final class CmId {
    /** rdma_cm's port space for RC (RDMA_PS_TCP): service id = port space << 16 | port. */
    public static final int PS_TCP = 0x0106;
    /** rdma_cm's port space for any connected QP type (RDMA_PS_IB), the one XRC connects in. */
    public static final int PS_IB = 0x013F;

    final EventChannel channel;
    final ConnectionManager cm;
    final int portSpace;
    /** The QP type connected: null for RC; XRC_SEND on an active XRC id, XRC_RECV on a listener's and its requests'. */
    final XrcQpType xrcType;
    CmState state = CmState.IDLE;
    int localPort;
    long serviceId;
    /** A listener: how many requests it may hold unanswered, and how many it holds. */
    int backlog;
    int pendingRequests;
    /** A passive id: the listener whose request it is (null once answered). */
    CmId listener;
    final boolean passive;
    int localCommId;
    int remoteCommId;
    int remoteIp;
    int remotePort;
    long remoteMac = MacAddress.BROADCAST;
    int remoteUdpPort;
    QueuePair qp;
    AddressHandle path;
    final int startingPsn;
    int pathMtu;
    int responderResources;
    int initiatorDepth;
    int retryCount;
    int rnrRetryCount;
    int minRnrTimer = QpBringUp.MIN_RNR_TIMER;
    int ackTimeout = QpBringUp.LOCAL_ACK_TIMEOUT;
    int peerQpn;
    int peerPsn;
    int peerResponderResources;
    int peerInitiatorDepth;
    int peerRetryCount;
    int peerRnrRetryCount;
    /** The private data of this side's last REQ, REP or REJ: sent again as it was. */
    private final byte[] privateData = new byte[CmMessage.MAX_LENGTH - CmMessage.HEADER_LENGTH];
    private final MemorySegment privateSegment = MemorySegment.ofArray(privateData);
    int privateLength;
    private long deadline;
    private int retriesLeft;
    /** Attached: this id's handle in the dataplane, whose CM runs it ({@link AttachedCm}); else 0. */
    int remote;

    private CmId(EventChannel channel, ConnectionManager cm, int portSpace, XrcQpType xrcType, boolean passive) {
        this.channel = channel;
        this.cm = cm;
        this.portSpace = portSpace;
        this.xrcType = xrcType;
        this.passive = passive;
        this.startingPsn = cm.newPsn();
    }

    /**
     * A new id for RC QPs on {@code context} reporting to {@code channel} (rdma_create_id), in port
     * space {@link #PS_TCP} or {@link #PS_IB}.
     */
    public static CmId create(EventChannel channel, Context context, int portSpace) {
        if (portSpace != PS_TCP && portSpace != PS_IB) {
            throw new VerbsException("the port spaces are RDMA_PS_TCP (0x0106) and RDMA_PS_IB (0x013f), was 0x"
                + Integer.toHexString(portSpace));
        }
        return create(channel, context, portSpace, null);
    }

    /**
     * A new id for one half of an XRC connection (rdma_create_id2 with IBV_QPT_XRC_SEND or
     * IBV_QPT_XRC_RECV, in {@link #PS_IB}): XRC_SEND connects (its QP is an XRC_SEND QP), XRC_RECV
     * listens, and each of its requests takes an XRC_RECV QP. The SRQ numbers the sender names are
     * the application's to pass, in the private data (the CM connects QPs, not SRQs).
     */
    public static CmId create(EventChannel channel, Context context, XrcQpType type) {
        if (type == null) {
            throw new VerbsException("an XRC id is XRC_SEND or XRC_RECV; for RC use create(channel, context)");
        }
        return create(channel, context, PS_IB, type);
    }

    private static CmId create(EventChannel channel, Context context, int portSpace, XrcQpType type) {
        ConnectionManager cm = ConnectionManager.of(context);
        channel.use(cm);
        CmId id = new CmId(channel, cm, portSpace, type, false);
        synchronized (cm) {
            cm.protocol.created(id, portSpace, type == null ? -1 : type.ordinal());
            cm.add(id);
        }
        return id;
    }

    public static CmId create(EventChannel channel, Context context) {
        return create(channel, context, PS_TCP);
    }

    /** Attached: the id of a request that came to {@code listener}, the dataplane's id {@code handle}. */
    static CmId attachedRequest(CmId listener, int handle) {
        CmId id = new CmId(listener.channel, listener.cm, listener.portSpace, listener.xrcType, true);
        id.remote = handle;
        id.state = CmState.REQ_RCVD;
        listener.cm.add(id);
        return id;
    }

    /** The id of a request that came to {@code listener}: holds what the REQ in {@code m} says. */
    static CmId requested(CmId listener, CmMessage m, int commId, int pathMtu) {
        CmId id = new CmId(listener.channel, listener.cm, listener.portSpace, listener.xrcType, true);
        id.state = CmState.REQ_RCVD;
        id.listener = listener;
        listener.pendingRequests++;
        id.localPort = listener.localPort;
        id.serviceId = listener.serviceId;
        id.localCommId = commId;
        id.remoteCommId = m.localCommId();
        id.remoteIp = m.ip();
        id.remoteMac = m.mac();
        id.remoteUdpPort = m.udpPort();
        id.peerQpn = m.qpn();
        id.peerPsn = m.startingPsn();
        id.peerResponderResources = m.responderResources();
        id.peerInitiatorDepth = m.initiatorDepth();
        id.peerRetryCount = m.retryCount();
        id.peerRnrRetryCount = m.rnrRetryCount();
        id.pathMtu = Math.min(pathMtu, CmMessage.mtuBytes(m.pathMtuCode()));
        return id;
    }

    /** Binds the id to a port of the context's address (rdma_bind_addr); 0 picks a free one. */
    public void bind(int port) {
        synchronized (cm) {
            cm.protocol.bind(this, port);
        }
    }

    /** Listens for connection requests (rdma_listen): at most {@code backlog} unanswered at once; more are rejected (NO_RESOURCES). */
    public void listen(int backlog) {
        synchronized (cm) {
            cm.protocol.listen(this, backlog);
        }
    }

    /**
     * Sets the destination (rdma_resolve_addr): the peer's IPv4 address and port. Reported at once
     * as ADDR_RESOLVED; the peer's MAC is learnt from its answer (the REQ goes to the broadcast MAC,
     * as an ARP request would, and only the device with that IPv4 address takes it).
     */
    public void resolveAddr(int ip, int port) {
        synchronized (cm) {
            cm.protocol.resolveAddr(this, ip, port);
        }
    }

    /** rdma_resolve_route: one hop on a srdnic fabric, so reported at once as ROUTE_RESOLVED. */
    public void resolveRoute() {
        synchronized (cm) {
            cm.protocol.resolveRoute(this);
        }
    }

    /**
     * Creates the id's QP (rdma_create_qp) in {@code pd} as {@code init} says, in INIT so receives
     * can be posted before the connection is up: RC for an RC id, the id's XRC shape for an XRC id.
     */
    public QueuePair createQp(ProtectionDomain pd, QpInitAttributes init) {
        if (init.xrcType() != xrcType || (xrcType == null && init.type() != QpType.RC)) {
            throw new VerbsException("this id connects " + (xrcType == null ? "RC" : xrcType) + " QPs, not "
                + (init.xrcType() == null ? init.type() : init.xrcType()));
        }
        QueuePair made = pd.createQueuePair(init);
        attachQp(made);
        return made;
    }

    /** Attaches a QP of the id's type (RC, XRC_SEND or XRC_RECV) the application made (in RESET or INIT): the CM drives it from now on. */
    public void attachQp(QueuePair queuePair) {
        synchronized (cm) {
            if (qp != null) {
                throw new VerbsException("the id has a QP already");
            }
            String mine = xrcType == null ? "RC" : xrcType.name();
            String theirs = queuePair.xrcType() != null ? queuePair.xrcType().name() : queuePair.type().name();
            if (!mine.equals(theirs)) {
                throw new VerbsException("this id connects " + mine + " QPs, this one is " + theirs);
            }
            if (queuePair.state() != QpState.RESET && queuePair.state() != QpState.INIT) {
                throw new VerbsException("attach a QP in RESET or INIT, this one is in " + queuePair.state());
            }
            cm.protocol.attachQp(this, queuePair);
        }
    }

    /** Connects (rdma_connect): sends the REQ with {@code p}'s private data (at most 56 bytes) and parameters. */
    public void connect(ConnParam p) {
        synchronized (cm) {
            cm.protocol.connect(this, p);
        }
    }

    /**
     * Accepts a request (rdma_accept): takes the QP to RTR and RTS with what the requester offered
     * (reads and atomics no more than it can issue or serve) and sends the REP with {@code p}'s
     * private data (at most 196 bytes). ESTABLISHED follows when the RTU arrives.
     */
    public void accept(ConnParam p) {
        synchronized (cm) {
            cm.protocol.accept(this, p);
        }
    }

    /** Rejects a request (rdma_reject) with up to 148 bytes of private data: the requester hears REJECTED (CONSUMER_DEFINED). */
    public void reject(byte[] data, int offset, int length) {
        synchronized (cm) {
            cm.protocol.reject(this, data, offset, length);
        }
    }

    public void reject() {
        reject(new byte[0], 0, 0);
    }

    /**
     * Disconnects (rdma_disconnect): the QP goes to ERROR and a DREQ to the peer; DISCONNECTED
     * follows with its DREP (or when the retries run out), TIMEWAIT_EXIT after TIMEWAIT. Once the
     * connection is already going down (either side began), it does nothing.
     */
    public void disconnect() {
        synchronized (cm) {
            cm.protocol.disconnect(this);
        }
    }

    /**
     * Destroys the id (rdma_destroy_id): a request not yet answered is rejected, a live connection
     * gets one DREQ (not waited for); the path address handle the CM made goes too. The QP is the
     * application's to destroy (before or after).
     */
    public void destroy() {
        synchronized (cm) {
            if (state == CmState.DESTROYED) {
                throw new VerbsException("CM id already destroyed");
            }
            cm.protocol.destroy(this, cm.context.isDeviceGone()); // closed, or (attached) its dataplane died: nothing to tell it
            state = CmState.DESTROYED;
            cm.remove(this);
        }
    }

    /**
     * The RNR timer this side's QP asks its peer to wait when it has no receive posted
     * (rdma_set_min_rnr_timer): IBTA's 5-bit code, 12 (0.64 ms) unless set. Before connect/accept.
     */
    public void setMinRnrTimer(int code) {
        synchronized (cm) {
            if (code < 0 || code > 31) {
                throw new VerbsException("the RNR timer is IBTA's 5-bit code 0..31, was " + code);
            }
            cm.protocol.setTimer(this, CmRequest.SET_MIN_RNR_TIMER, code);
            minRnrTimer = code;
        }
    }

    /** The QP's local ACK timeout (rdma_set_ack_timeout): 4.096 µs × 2^code, 14 (67 ms) unless set. Before connect/accept. */
    public void setAckTimeout(int code) {
        synchronized (cm) {
            if (code < 0 || code > 31) {
                throw new VerbsException("the ACK timeout is a 5-bit code 0..31, was " + code);
            }
            cm.protocol.setTimer(this, CmRequest.SET_ACK_TIMEOUT, code);
            ackTimeout = code;
        }
    }

    public QueuePair qp() {
        return qp;
    }

    /** Whether the id came from a listener's CONNECT_REQUEST (the passive side of its connection). */
    public boolean isPassive() {
        return passive;
    }

    /** The XRC half this id connects (XRC_SEND, XRC_RECV), or null for RC. */
    public XrcQpType xrcType() {
        return xrcType;
    }

    public int localPort() {
        return localPort;
    }

    /** The peer's IPv4 address (once resolved, or from its request). */
    public int remoteIp() {
        return remoteIp;
    }

    public Context context() {
        return cm.context;
    }

    /** The responder resources and initiator depth this side's QP got (max_dest_rd_atomic, max_rd_atomic). */
    public int responderResources() {
        return responderResources;
    }

    public int initiatorDepth() {
        return initiatorDepth;
    }

    String stateName() {
        return state.name();
    }

    // ---------------------------------------------------------------- from the connection manager (under its lock)

    void onMessage(int type, CmMessage m, long now) {
        switch (type) {
            case CmMessage.REP -> onReply(m);
            case CmMessage.RTU -> {
                if (state == CmState.REP_SENT) {
                    state = CmState.ESTABLISHED;
                    deadline = 0;
                    report(CmEventType.ESTABLISHED, m);
                }
            }
            case CmMessage.REJ -> {
                if (state == CmState.REQ_SENT || state == CmState.REP_SENT) {
                    QpBringUp.error(qp);
                    state = CmState.DONE;
                    deadline = 0;
                    CmEvent e = eventFrom(CmEventType.REJECTED, m);
                    e.status = m.rejectReason();
                    channel.publish(e);
                }
            }
            case CmMessage.DREQ -> {
                if (state == CmState.ESTABLISHED || state == CmState.REP_SENT || state == CmState.DREQ_SENT) {
                    QpBringUp.error(qp);
                    send(CmMessage.DREP);
                    enterTimewait(now);
                    report(CmEventType.DISCONNECTED, m);
                } else if (state == CmState.TIMEWAIT) {
                    cm.counters.duplicateRequests++;
                    send(CmMessage.DREP); // our DREP was lost
                }
            }
            case CmMessage.MRA -> {
                if (state == CmState.REQ_SENT) {
                    deadline = nonZero(now + cm.config.mraTimeoutNanos); // the application over there is slow, not gone
                }
            }
            case CmMessage.DREP -> {
                if (state == CmState.DREQ_SENT) {
                    enterTimewait(now);
                    report(CmEventType.DISCONNECTED, m);
                }
            }
            default -> {
            }
        }
    }

    private void onReply(CmMessage m) {
        if (state == CmState.ESTABLISHED && m.localCommId() == remoteCommId) {
            cm.counters.duplicateReplies++;
            send(CmMessage.RTU); // our RTU was lost: the responder sent its REP again
            return;
        }
        if (state != CmState.REQ_SENT) {
            return;
        }
        if (m.transport() != transport()) {
            remoteCommId = m.localCommId();
            remoteMac = m.mac();
            remoteUdpPort = m.udpPort();
            refuseReply(RejectReason.INVALID_TRANSPORT_TYPE); // an answer of the other QP type: neither QP can talk to the other
            return;
        }
        remoteCommId = m.localCommId();
        remoteMac = m.mac();
        remoteUdpPort = m.udpPort();
        peerQpn = m.qpn();
        peerPsn = m.startingPsn();
        peerResponderResources = m.responderResources();
        peerInitiatorDepth = m.initiatorDepth();
        pathMtu = Math.min(pathMtu, CmMessage.mtuBytes(m.pathMtuCode()));
        // The responder's grant, as IB's CM takes it: it serves peerResponderResources of our reads,
        // and issues at most peerInitiatorDepth at us.
        int maxRdAtomic = Math.min(initiatorDepth, peerResponderResources);
        int maxDestRdAtomic = Math.max(peerInitiatorDepth, 0);
        try {
            path = qpPath();
            QpBringUp.connect(qp, path.handle(), pathMtu, peerQpn, peerPsn, maxDestRdAtomic, minRnrTimer, startingPsn,
                    ackTimeout, retryCount,
                m.rnrRetryCount(), maxRdAtomic);
        } catch (VerbsException e) {
            // the application destroyed or moved the QP meanwhile: refuse, so the responder does not wait for an RTU
            refuseReply(RejectReason.NO_QP);
            return;
        }
        initiatorDepth = maxRdAtomic;
        responderResources = maxDestRdAtomic;
        state = CmState.ESTABLISHED;
        deadline = 0;
        send(CmMessage.RTU);
        report(CmEventType.ESTABLISHED, m);
    }

    /** Refuses the REP just taken with {@code reason}: the responder hears REJ, this side REJECTED; the QP goes to ERROR. */
    private void refuseReply(int reason) {
        privateLength = 0;
        sendReject(reason);
        QpBringUp.error(qp);
        state = CmState.DONE;
        deadline = 0;
        CmEvent rejected = channel.obtain(CmEventType.REJECTED, this);
        rejected.status = reason;
        channel.publish(rejected);
    }

    void onDuplicateRequest() {
        cm.counters.duplicateRequests++;
        if (state == CmState.REQ_RCVD) {
            send(CmMessage.MRA); // received, waiting for the application: the requester should wait longer
        } else if (state == CmState.REP_SENT) {
            send(CmMessage.REP); // our REP was lost, or is slow: the requester asks again
        } else if (state == CmState.TIMEWAIT) {
            sendReject(RejectReason.STALE_CONNECTION);
        }
    }

    void onTimer(long now) {
        if (deadline == 0 || now - deadline < 0) {
            return;
        }
        if (state == CmState.TIMEWAIT) {
            state = CmState.DONE;
            deadline = 0;
            report(CmEventType.TIMEWAIT_EXIT);
            return;
        }
        if (retriesLeft > 0) {
            retriesLeft--;
            cm.counters.retransmits++;
            deadline = now + cm.config.responseTimeoutNanos;
            send(state == CmState.REQ_SENT ? CmMessage.REQ : state == CmState.REP_SENT ? CmMessage.REP : CmMessage.DREQ);
            return;
        }
        deadline = 0;
        if (state == CmState.DREQ_SENT) {
            enterTimewait(now); // the peer is gone: down all the same
            report(CmEventType.DISCONNECTED);
            return;
        }
        if (state == CmState.REP_SENT) {
            privateLength = 0;
            sendReject(RejectReason.TIMEOUT);
        }
        QpBringUp.error(qp);
        state = CmState.DONE;
        report(CmEventType.UNREACHABLE);
    }

    void onDeviceRemoval() {
        if (state != CmState.DESTROYED) {
            if (state == CmState.REQ_RCVD) {
                answered();
            }
            state = CmState.DONE;
            deadline = 0;
            report(CmEventType.DEVICE_REMOVAL);
        }
    }

    void reportRequest(CmMessage m) {
        CmEvent e = eventFrom(CmEventType.CONNECT_REQUEST, m);
        e.listenId = listener;
        e.retryCount = m.retryCount();
        e.rnrRetryCount = m.rnrRetryCount();
        channel.publish(e);
    }

    // ---------------------------------------------------------------- helpers

    void send(int type) {
        EmbeddedCm wire = cm.embedded();
        int slot = wire.begin();
        if (slot < 0) {
            return; // counted; the timer sends it again (or the peer asks again)
        }
        int length = wire.tx.write(type, localCommId, type == CmMessage.REQ ? 0 : remoteCommId, serviceId,
            carriesPrivateData(type) ? privateLength : 0);
        wire.tx.sender(cm.context.mac(), cm.context.ip(), cm.context.udpPort());
        if (carriesPrivateData(type)) {
            wire.tx.privateData(privateSegment, 0, privateLength);
        }
        if (type == CmMessage.REQ) {
            wire.tx.connection(qp.qpNum(), startingPsn, responderResources, initiatorDepth, retryCount, rnrRetryCount,
                CmMessage.mtuCode(pathMtu)).transport(transport());
        } else if (type == CmMessage.REP) {
            wire.tx.connection(qp.qpNum(), startingPsn, responderResources, initiatorDepth, 0, rnrRetryCount, CmMessage.mtuCode(pathMtu))
                .transport(transport());
        }
        wire.finish(slot, type, length, remoteMac, remoteIp, remoteUdpPort);
    }

    void sendReject(int reason) {
        EmbeddedCm wire = cm.embedded();
        int slot = wire.begin();
        if (slot < 0) {
            return;
        }
        int length = wire.tx.write(CmMessage.REJ, localCommId, remoteCommId, serviceId, privateLength);
        wire.tx.sender(cm.context.mac(), cm.context.ip(), cm.context.udpPort()).rejectReason(reason).privateData(privateSegment, 0,
            privateLength);
        wire.finish(slot, CmMessage.REJ, length, remoteMac, remoteIp, remoteUdpPort);
    }

    /** The transport byte of this id's REQ or REP, and what it expects in the peer's. */
    int transport() {
        return xrcType == null ? CmMessage.TRANSPORT_RC : CmMessage.TRANSPORT_XRC;
    }

    private static boolean carriesPrivateData(int type) {
        return type == CmMessage.REQ || type == CmMessage.REP;
    }

    void arm(long now) {
        retriesLeft = cm.config.maxRetries;
        deadline = nonZero(now + cm.config.responseTimeoutNanos);
    }

    private void enterTimewait(long now) {
        state = CmState.TIMEWAIT;
        deadline = nonZero(now + cm.config.timewaitNanos);
    }

    private static long nonZero(long t) {
        return t == 0 ? 1 : t;
    }

    /** The request is answered (accepted, rejected, or gone): it no longer counts against the listener's backlog. */
    void answered() {
        if (listener != null) {
            listener.pendingRequests--;
            listener = null;
        }
    }

    AddressHandle qpPath() {
        if (path != null) {
            return path;
        }
        return qp.protectionDomain().createAddressHandle(remoteMac, remoteIp, remoteUdpPort);
    }

    void keepPrivateData(byte[] data, int offset, int length) {
        System.arraycopy(data, offset, privateData, 0, length);
        privateLength = length;
    }

    void report(CmEventType type) {
        channel.publish(channel.obtain(type, this));
    }

    private void report(CmEventType type, CmMessage m) {
        channel.publish(eventFrom(type, m));
    }

    private CmEvent eventFrom(CmEventType type, CmMessage m) {
        CmEvent e = channel.obtain(type, this);
        int n = m.privateDataLength();
        MemorySegment.copy(m.buffer(), ValueLayout.JAVA_BYTE, m.privateDataOffset(), e.privateData, 0, n);
        e.privateDataLength = n;
        e.responderResources = m.responderResources();
        e.initiatorDepth = m.initiatorDepth();
        return e;
    }

    void checkQp() {
        if (qp == null) {
            throw new VerbsException("the id has no QP: createQp or attachQp first");
        }
    }

    void expect(CmState wanted, String what) {
        if (state != wanted) {
            throw new VerbsException(what + ": the id is in " + state + ", needs " + wanted);
        }
    }

    static long serviceId(int portSpace, int port) {
        return (long) portSpace << 16 | port;
    }
}
