package io.srdnic.verbs.cm;

import io.srdnic.verbs.Context;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.attach.control.CmEventMessage;
import io.srdnic.verbs.attach.control.CmRequest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The connection manager of an attached context, as its application sees it: a proxy. The port's
 * management QP (QPN 1) is one per device and the dataplane's, shared by all its clients, so the
 * CM runs in the dataplane (as the kernel's ib_cm serves every process through rdma_ucm); each CM
 * id here names one there by a handle. Calls go over the control socket (CM_REQUEST) and are
 * checked there, with the CM's own words; events come back (CM_EVENT) and are put on the id's
 * channel when the channel is polled. The QP an id drives is moved by the dataplane's CM: after
 * each move (attach, accept, an event that ends or establishes the connection) the application's
 * view of the QP's state is refreshed with a query.
 */
final class AttachedCm implements CmProtocol {
    private final ConnectionManager cm;
    private final Context context;
    private final Map<Integer, CmId> ids = new HashMap<>();

    AttachedCm(ConnectionManager cm) {
        this.cm = cm;
        this.context = cm.context;
    }

    /** Makes the id's counterpart in the dataplane and remembers it by its handle. */
    @Override
    public void created(CmId id, int portSpace, int xrcOrdinal) {
        int handle = context.attachedCmCall(CmRequest.of(CmRequest.CREATE, 0, portSpace, xrcOrdinal)).handle();
        ids.put(handle, id);
        id.remote = handle;
    }

    @Override
    public void bind(CmId id, int port) {
        id.localPort = call(id, CmRequest.BIND, port);
        id.state = CmState.BOUND;
    }

    @Override
    public void listen(CmId id, int backlog) {
        call(id, CmRequest.LISTEN, backlog);
        id.state = CmState.LISTEN;
    }

    /** ADDR_RESOLVED comes from the dataplane's id. */
    @Override
    public void resolveAddr(CmId id, int ip, int port) {
        id.localPort = call(id, CmRequest.RESOLVE_ADDR, ip, port);
        id.remoteIp = ip;
        id.remotePort = port;
    }

    @Override
    public void resolveRoute(CmId id) {
        call(id, CmRequest.RESOLVE_ROUTE);
    }

    @Override
    public void attachQp(CmId id, QueuePair queuePair) {
        call(id, CmRequest.ATTACH_QP, queuePair.qpNum()); // the dataplane's CM takes it to INIT
        id.qp = queuePair;
        refresh(queuePair);
    }

    @Override
    public void connect(CmId id, ConnParam p) {
        call(id, CmRequest.CONNECT, p);
    }

    @Override
    public void accept(CmId id, ConnParam p) {
        call(id, CmRequest.ACCEPT, p);
        refresh(id.qp); // RTS now, as embedded: the application may post before ESTABLISHED
    }

    @Override
    public void disconnect(CmId id) {
        call(id, CmRequest.DISCONNECT);
        refresh(id.qp);
    }

    @Override
    public void destroy(CmId id, boolean deviceGone) {
        if (!deviceGone) {
            call(id, CmRequest.DESTROY);
            refresh(id.qp);
        }
        ids.remove(id.remote);
    }

    @Override
    public void setTimer(CmId id, int op, int code) {
        call(id, op, code);
    }

    /** One call on {@code id}'s counterpart; returns the id's local port afterwards. */
    private int call(CmId id, int op, int... args) {
        return context.attachedCmCall(CmRequest.of(op, id.remote, args)).state();
    }

    /** CONNECT or ACCEPT with {@code p}. */
    private void call(CmId id, int op, ConnParam p) {
        context.attachedCmCall(new CmRequest(op, id.remote, new int[] {p.responderResources, p.initiatorDepth, p.retryCount,
            p.rnrRetryCount}, Arrays.copyOf(p.privateData, p.privateDataLength)));
    }

    @Override
    public void reject(CmId id, byte[] data, int offset, int length) {
        ConnParam.checkRejectData(length);
        context.attachedCmCall(new CmRequest(CmRequest.REJECT, id.remote, new int[CmRequest.ARGS],
            Arrays.copyOfRange(data, offset, offset + length)));
        id.state = CmState.DONE;
    }

    /**
     * Puts the events the dataplane sent on their ids' channels; returns how many. Once the
     * dataplane is gone, every id hears DEVICE_REMOVAL after the last of its events.
     */
    @Override
    public int progress() {
        // Read before the events are taken: the reader thread queues the dataplane's last events
        // before it says they ended, so all of them are delivered before DEVICE_REMOVAL.
        boolean gone = context.deviceEventsEnded();
        int n = events();
        if (gone) {
            cm.deviceRemoved();
            return n + 1;
        }
        return n;
    }

    private int events() {
        int n = 0;
        CmEventMessage m;
        while ((m = context.pollAttachedCmEvent()) != null) {
            n++;
            CmEventType type = CmEventType.values()[m.eventType()];
            CmId id = ids.get(m.id());
            CmId listener = type == CmEventType.CONNECT_REQUEST ? ids.get(m.listenId()) : null;
            if (id == null && listener != null) {
                id = CmId.attachedRequest(listener, m.id());
                ids.put(m.id(), id);
            }
            if (id == null) {
                continue; // destroyed here meanwhile
            }
            int[] v = m.values();
            id.localPort = v[4];
            id.remoteIp = v[5];
            id.responderResources = v[6];
            id.initiatorDepth = v[7];
            CmEvent e = id.channel.obtain(type, id);
            e.listenId = listener;
            e.status = m.status();
            e.responderResources = v[0];
            e.initiatorDepth = v[1];
            e.retryCount = v[2];
            e.rnrRetryCount = v[3];
            System.arraycopy(m.data(), 0, e.privateData, 0, m.data().length);
            e.privateDataLength = m.data().length;
            if (type == CmEventType.ESTABLISHED || type == CmEventType.REJECTED || type == CmEventType.UNREACHABLE
                || type == CmEventType.DISCONNECTED) {
                refresh(id.qp);
            }
            id.channel.publish(e);
        }
        return n;
    }

    /** The dataplane's CM moved {@code qp}: its state as the application sees it follows. */
    private static void refresh(QueuePair qp) {
        if (qp != null) {
            try {
                qp.query();
            } catch (VerbsException destroyed) {
                // the application destroyed the QP, or the dataplane is gone: nothing to follow
            }
        }
    }
}
