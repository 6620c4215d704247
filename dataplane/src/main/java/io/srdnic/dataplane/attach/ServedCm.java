package io.srdnic.dataplane.attach;

import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.XrcQpType;
import io.srdnic.verbs.attach.control.CmEventMessage;
import io.srdnic.verbs.attach.control.CmRequest;
import io.srdnic.verbs.attach.control.HandleReply;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmEventType;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.EventChannel;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One client's CM ids, made on the dataplane's connection manager of the client's port: the one
 * management QP (QPN 1) of that port is the dataplane's, shared by every client, so the CM runs here
 * and the client calls it (CM_REQUEST) and hears its events (CM_EVENT). The ids drive the client's
 * QPs, which are QPs of the same embedded context. A client that goes has its ids destroyed first:
 * a live connection's peer gets a DREQ (DISCONNECTED), a request not answered a REJ. Runs on the
 * dataplane thread only; control path (allocates).
 */
final class ServedCm {
    private final ClientSession client;
    private final EventChannel channel = new EventChannel(16);
    private final Map<Integer, CmId> ids = new HashMap<>();
    private final Map<CmId, Integer> handles = new IdentityHashMap<>();
    private int nextHandle = 1;
    /** Set when the client is gone: a send that drops it may do so in the middle of {@link #pump}. */
    private boolean reclaimed;

    ServedCm(ClientSession client) {
        this.client = client;
    }

    HandleReply call(CmRequest r) {
        int[] a = r.args();
        if (r.op() == CmRequest.CREATE) {
            ClientSession.overQuota(ids.size() >= client.quota().cmIds(), "CM ids", ids.size(), client.quota().cmIds());
            CmId id = a[1] < 0 ? CmId.create(channel, client.context(), a[0]) : CmId.create(channel, client.context(), xrcType(a[1]));
            return HandleReply.of(handle(id));
        }
        CmId id = ids.get(r.id());
        if (id == null) {
            throw new VerbsException("no CM id " + r.id() + " in this context");
        }
        switch (r.op()) {
            case CmRequest.BIND -> id.bind(a[0]);
            case CmRequest.LISTEN -> id.listen(a[0]);
            case CmRequest.RESOLVE_ADDR -> id.resolveAddr(a[0], a[1]);
            case CmRequest.RESOLVE_ROUTE -> id.resolveRoute();
            case CmRequest.ATTACH_QP -> id.attachQp(client.queuePair(a[0]));
            case CmRequest.CONNECT -> id.connect(param(r));
            case CmRequest.ACCEPT -> id.accept(param(r));
            case CmRequest.REJECT -> id.reject(r.data(), 0, r.data().length);
            case CmRequest.DISCONNECT -> id.disconnect();
            case CmRequest.DESTROY -> {
                ids.remove(r.id());
                handles.remove(id);
                id.destroy();
            }
            case CmRequest.SET_MIN_RNR_TIMER -> id.setMinRnrTimer(a[0]);
            case CmRequest.SET_ACK_TIMEOUT -> id.setAckTimeout(a[0]);
            default -> throw new VerbsException("no CM operation " + r.op());
        }
        return new HandleReply(r.id(), id.localPort(), 0, 0, 0, 0);
    }

    /** Sends the client every event of its ids the port's CM made (the lcore runs the CM); returns how many. */
    int pump(Consumer<CmEventMessage> send) {
        int n = 0;
        CmEvent e;
        while (!reclaimed && (e = channel.pollCompleted()) != null) { // the lcore ran the port's CM just before
            n++;
            Integer known = handles.get(e.id());
            if (known == null && e.type() != CmEventType.CONNECT_REQUEST) {
                channel.ack(e); // about an id the client destroyed meanwhile
                continue;
            }
            int id = known != null ? known : handle(e.id());
            Integer listen = e.listenId() == null ? null : handles.get(e.listenId());
            CmId c = e.id();
            int[] values = {e.responderResources(), e.initiatorDepth(), e.retryCount(), e.rnrRetryCount(), c.localPort(), c.remoteIp(),
                c.responderResources(), c.initiatorDepth()};
            send.accept(new CmEventMessage(id, e.type().ordinal(), listen == null ? 0 : listen, e.status(), values,
                Arrays.copyOf(e.privateData(), e.privateDataLength())));
            channel.ack(e);
        }
        return n;
    }

    /** The client is gone: every id it holds is destroyed (peers told, as rdma_destroy_id tells them). Returns how many. */
    int reclaim() {
        reclaimed = true;
        int n = 0;
        for (CmId id : ids.values()) {
            try {
                id.destroy();
            } catch (VerbsException alreadyGone) {
                // destroyed by the CM's own end of the connection: nothing to tell
            }
            n++;
        }
        ids.clear();
        handles.clear();
        channel.close();
        return n;
    }

    private int handle(CmId id) {
        int h = nextHandle++;
        ids.put(h, id);
        handles.put(id, h);
        return h;
    }

    private static XrcQpType xrcType(int ordinal) {
        XrcQpType[] all = XrcQpType.values();
        if (ordinal >= all.length) {
            throw new VerbsException("no XRC QP type " + ordinal);
        }
        return all[ordinal];
    }

    private static ConnParam param(CmRequest r) {
        int[] a = r.args();
        return new ConnParam().privateData(r.data(), 0, r.data().length).responderResources(a[0]).initiatorDepth(a[1]).retryCount(a[2])
            .rnrRetryCount(a[3]);
    }

    /** The handles of the client's live CM ids, in order (for the res file). */
    List<Integer> handles() {
        return ids.keySet().stream().sorted().toList();
    }
}
