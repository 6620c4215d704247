package io.srdnic.verbs.cm;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.transport.SrdTransport;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connection manager of one context: its management QP (UD at QPN 1, Q_Key
 * {@link CmMessage#QKEY}), the CM ids on the context, and the messages between them and their
 * peers. On an attached context it is a proxy ({@link AttachedCm}): the dataplane runs this class
 * for the port, and its clients' ids are made there. It runs when an {@link EventChannel} is polled: it reads what arrived, hands each message
 * to the id it names (or answers for ids that do not exist), and sends again what timed out. All
 * its state is guarded by its own lock, so ids on one context may be used from several threads.
 * Bounded against a hostile peer: a listener holds at most its backlog of unanswered requests, and
 * the answers to strangers go out on at most {@link #MAX_REPLY_HANDLES} address handles.
 */
public final class ConnectionManager {
    /** Each open context's manager; a context's close hook takes its entry out. */
    private static final Map<Context, ConnectionManager> MANAGERS = new ConcurrentHashMap<>();
    static final int SLOT = 512;
    static final int RECV_SLOTS = 128;
    static final int SEND_SLOTS = 64;
    static final int MAX_REPLY_HANDLES = 64;

    final Context context;
    final CmConfig config;
    final CmCounters counters = new CmCounters();
    final CmMessage tx = new CmMessage();
    private final CmMessage rx = new CmMessage();
    /** Freed with the manager: once its context is closed nothing refers to it (the hook below lets go of it). */
    private final Arena arena = Arena.ofAuto();
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
    private final List<CmId> ids = new ArrayList<>();
    private final List<AddressHandle> replyHandles = new ArrayList<>();
    private final SplittableRandom random;
    private final int pathMtu;
    private boolean removed;
    /** Attached: the proxy to the dataplane's CM, which owns the port's management QP (this manager has none); else null. */
    final AttachedCm attached;

    private ConnectionManager(Context context, CmConfig config) {
        this.context = context;
        this.config = config;
        this.random = new SplittableRandom(((long) context.ip() << 32) ^ context.now() ^ 0x5DEECE66DL);
        if (context.isAttached()) {
            this.attached = new AttachedCm(context);
            this.pd = null;
            this.sendCq = null;
            this.recvCq = null;
            this.qp = null;
            this.mr = null;
            this.pathMtu = 0;
            return;
        }
        this.attached = null;
        this.pd = context.allocPd();
        this.sendCq = context.createCq(SEND_SLOTS);
        this.recvCq = context.createCq(RECV_SLOTS);
        this.qp = pd.createManagementQueuePair(sendCq, recvCq, SEND_SLOTS, RECV_SLOTS);
        MemorySegment memory = arena.allocate((long) (RECV_SLOTS + SEND_SLOTS) * SLOT, 64);
        this.mr = pd.registerMemory(memory, Access.LOCAL_WRITE);
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

    /** The context's connection manager, made (with its management QP) on first use with the default timers. */
    public static ConnectionManager of(Context context) {
        return of(context, new CmConfig());
    }

    /** As {@link #of(Context)}; {@code config} counts only if this call makes the manager. */
    public static ConnectionManager of(Context context, CmConfig config) {
        ConnectionManager cm = MANAGERS.get(context);
        if (cm != null) {
            return cm;
        }
        synchronized (context) { // the lock Context.close takes: no close runs between the check and the hook
            if (context.isClosed()) {
                throw new VerbsException("context is closed");
            }
            cm = MANAGERS.get(context);
            if (cm == null) {
                cm = new ConnectionManager(context, config);
                MANAGERS.put(context, cm);
                context.onClose(() -> MANAGERS.remove(context));
            }
            return cm;
        }
    }

    /** Whether {@code context} has a manager in the table (not once it is closed). */
    static boolean isManaged(Context context) {
        return MANAGERS.containsKey(context);
    }

    /** Messages sent and received by type, retransmissions, duplicates, malformed messages dropped (by reason), ... */
    public synchronized Map<String, Long> counters() {
        return counters.snapshot();
    }

    long now() {
        return context.now();
    }

    boolean invoker() {
        return context.threadingMode() == ThreadingMode.INVOKER;
    }

    int pathMtu() {
        return pathMtu;
    }

    int newCommId() {
        int id;
        do {
            id = random.nextInt();
        } while (id == 0 || byLocalCommId(id) != null);
        return id;
    }

    int newPsn() {
        return random.nextInt() & 0xFF_FFFF;
    }

    int ephemeralPort() {
        return 32768 + random.nextInt(28232);
    }

    void add(CmId id) {
        ids.add(id);
    }

    void remove(CmId id) {
        ids.remove(id);
    }

    List<CmId> ids() {
        return ids;
    }

    /**
     * Runs the manager once without an event channel: for the srdnic dataplane, which owns each
     * port's CM for its clients and runs it whether or not a client holds an id (so the management
     * QP's receives are always taken, and a request to a port nobody listens on is answered).
     */
    public int poll() {
        return progress();
    }

    /** One round: reads the management QP's completions, handles each message, fires the timers. Returns the messages handled. */
    synchronized int progress() {
        if (removed) {
            return 0;
        }
        if (context.isClosed()) {
            deviceRemoved();
            return 1;
        }
        if (attached != null) {
            // Read before the events are taken: the reader thread queues the dataplane's last events
            // before it says they ended, so all of them are delivered before DEVICE_REMOVAL.
            boolean gone = context.deviceEventsEnded();
            int n = attached.progress();
            if (gone) {
                deviceRemoved();
                return n + 1;
            }
            return n;
        }
        context.progress();
        int n;
        while ((n = sendCq.poll(wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                freeSend[freeSendCount++] = (int) wcs[i].wrId();
            }
        }
        int work = 0;
        long now = now();
        while ((n = recvCq.poll(wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                int slot = (int) wc.wrId();
                if (wc.ok()) {
                    onMessage(slot, wc.byteLength(), wc.sourceIp(), wc.sourceQpn(), now);
                } else {
                    counters.receiveErrors++;
                }
                repost(slot);
                work++;
            }
        }
        for (int i = 0; i < ids.size(); i++) {
            ids.get(i).onTimer(now);
        }
        return work;
    }

    private void onMessage(int slot, int length, int sourceIp, int sourceQpn, long now) {
        rx.wrap(mr.segment(), (long) slot * SLOT);
        int type = rx.parse(length);
        if (type < 0) {
            counters.malformed[-type]++;
            return;
        }
        if (rx.ip() != sourceIp || sourceQpn != SrdTransport.MANAGEMENT_QPN) {
            counters.wrongSender++; // a message names the sender it came from: its answers go there
            return;
        }
        counters.received[type]++;
        if (type == CmMessage.REQ) {
            onRequest(now);
            return;
        }
        CmId id = byLocalCommId(rx.remoteCommId());
        if (id == null || id.remoteIp != sourceIp || (id.remoteCommId != 0 && id.remoteCommId != rx.localCommId())) {
            onUnknown(type);
            return;
        }
        id.onMessage(type, rx, now);
    }

    private void onRequest(long now) {
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
        CmId child = CmId.requested(listener, rx, newCommId(), now);
        ids.add(child);
        child.reportRequest(rx);
    }

    /** A message for no id of ours: a REP gets a REJ (the requester must not think it is connected), a DREQ its DREP; the rest is dropped. */
    private void onUnknown(int type) {
        counters.unknownCommId++;
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
        int as = rx.remoteCommId() != 0 ? rx.remoteCommId() : newCommId();
        int length = tx.write(type, as, rx.localCommId(), rx.serviceId(), 0);
        tx.sender(context.mac(), context.ip(), context.udpPort()).rejectReason(reason);
        finish(slot, type, length, mac, ip, port);
    }

    private CmId listenerFor(long serviceId) {
        for (int i = 0; i < ids.size(); i++) {
            CmId id = ids.get(i);
            if (id.state == CmState.LISTEN && id.serviceId == serviceId) {
                return id;
            }
        }
        return null;
    }

    CmId byLocalCommId(int commId) {
        for (int i = 0; i < ids.size(); i++) {
            CmId id = ids.get(i);
            if (id.localCommId == commId && id.state != CmState.DONE) {
                return id;
            }
        }
        return null;
    }

    /** A free send slot with {@link #tx} wrapped over it, or -1 (counted: the timer sends it again). */
    int begin() {
        if (freeSendCount == 0) {
            counters.sendSlotsExhausted++;
            return -1;
        }
        int slot = freeSend[--freeSendCount];
        tx.wrap(mr.segment(), (long) (RECV_SLOTS + slot) * SLOT);
        return slot;
    }

    /** Sends the {@code length} bytes written into {@code slot} to the management QP at (mac, ip, port). */
    void finish(int slot, int type, int length, long mac, int ip, int port) {
        sendWr.wrId(slot).opcode(SendWr.OP_SEND).flags(SendWr.SIGNALED).numSge(1)
            .destination(replyHandle(mac, ip, port), SrdTransport.MANAGEMENT_QPN, CmMessage.QKEY);
        sendWr.sge(0).set(mr, (long) (RECV_SLOTS + slot) * SLOT, length);
        if (qp.postSend(sendWr) != 0) {
            freeSend[freeSendCount++] = slot;
            counters.sendSlotsExhausted++;
            return;
        }
        counters.sent[type]++;
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

    /** The context was closed, or its dataplane died: every id hears DEVICE_REMOVAL once; the manager is done. */
    private void deviceRemoved() {
        removed = true;
        MANAGERS.remove(context);
        for (int i = 0; i < ids.size(); i++) {
            ids.get(i).onDeviceRemoval();
        }
    }
}
