package io.srdnic.cli.perf;

import io.srdnic.srd.transport.QpAttributes;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmConfig;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnectionManager;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.EventChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Connects perf's RC QPs through the connection manager, QP i to the peer's QP i: the server listens
 * on {@link #PORT} (before it tells the client it is there), the client sends one request per QP
 * whose private data names the QP's index, and the server attaches its QP of that index and accepts.
 * The CM exchanges the QP numbers and first PSNs and takes each QP to RTR and RTS (READs and atomics
 * up to the transport's most, 7 retries, RNR retried for ever, as perftest sets them; the RNR timer
 * at 0.01 ms). Non-blocking
 * ({@link #step}), so one thread can drive both sides on a simulator.
 */
final class RcCmConnector implements AutoCloseable {
    /** The CM service port perf's server listens on (the port space is the CM's, not UDP's). */
    static final int PORT = 18515;
    /** IBTA code 1, 0.01 ms: a receiver reposts at once, so a sender told RNR tries again soon (as perf did before the CM). */
    static final int MIN_RNR_TIMER = 1;
    /** rdma_cm's 15 retries (CMA_MAX_CM_RETRIES) rather than the CM's 5: perf runs on lossy simulated links too. */
    private static final CmConfig CM_CONFIG = new CmConfig().maxRetries(15);

    private final EventChannel channel = new EventChannel(16);
    private final QueuePair[] qps;
    private final List<CmId> ids = new ArrayList<>();
    private final ConnParam param = new ConnParam().responderResources(QpAttributes.RD_ATOMIC_LIMIT)
        .initiatorDepth(QpAttributes.RD_ATOMIC_LIMIT).retryCount(7).rnrRetryCount(7);
    private CmId listener;
    private int established;

    private RcCmConnector(QueuePair[] qps) {
        this.qps = qps;
    }

    /** The server: listens for the client's requests, one per QP. */
    static RcCmConnector listen(Context context, QueuePair[] qps) {
        ConnectionManager.of(context, CM_CONFIG);
        RcCmConnector c = new RcCmConnector(qps);
        c.listener = CmId.create(c.channel, context);
        c.listener.bind(PORT);
        c.listener.listen(qps.length);
        return c;
    }

    /** The client: one request per QP to the server's CM at {@code serverIp}. */
    static RcCmConnector connect(Context context, QueuePair[] qps, int serverIp) {
        ConnectionManager.of(context, CM_CONFIG);
        RcCmConnector c = new RcCmConnector(qps);
        for (int i = 0; i < qps.length; i++) {
            CmId id = CmId.create(c.channel, context);
            c.ids.add(id);
            id.resolveAddr(serverIp, PORT);
            id.resolveRoute();
            id.attachQp(qps[i]);
            id.setMinRnrTimer(MIN_RNR_TIMER);
            id.connect(c.param.privateData(new byte[] {(byte) (i >>> 8), (byte) i}));
        }
        return c;
    }

    /** Handles the next CM event, if any; true once every QP is connected. Throws when one cannot be. */
    boolean step() {
        CmEvent e = channel.poll();
        if (e != null) {
            try {
                onEvent(e);
            } finally {
                channel.ack(e);
            }
        }
        return established == qps.length;
    }

    /** Steps until every QP is connected, or throws at {@code deadlineNanos} (System.nanoTime). */
    void await(long deadlineNanos) {
        while (!step()) {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new IllegalStateException("the CM connected " + established + " of " + qps.length + " RC QPs before the time limit");
            }
        }
    }

    private void onEvent(CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> {
                int index = e.privateDataLength() == 2 ? (e.privateData()[0] & 0xFF) << 8 | (e.privateData()[1] & 0xFF) : -1;
                CmId id = e.id();
                if (index < 0 || index >= qps.length || qps[index].state() != io.srdnic.srd.transport.QpState.INIT) {
                    id.reject();
                    id.destroy();
                    return;
                }
                ids.add(id);
                id.attachQp(qps[index]);
                id.setMinRnrTimer(MIN_RNR_TIMER);
                id.accept(param.privateData(new byte[0]));
            }
            case ESTABLISHED -> established++;
            case ADDR_RESOLVED, ROUTE_RESOLVED, TIMEWAIT_EXIT -> {
            }
            default -> throw new IllegalStateException("connecting RC QPs through the CM: " + e
                + (e.type() == io.srdnic.verbs.cm.CmEventType.REJECTED && e.status() == io.srdnic.verbs.cm.RejectReason.NO_LISTENER
                    ? " (is the other side running --transport rc?)" : ""));
        }
    }

    /** Lets go of the CM ids (the QPs stay the endpoint's). */
    @Override
    public void close() {
        for (CmId id : ids) {
            id.destroy();
        }
        if (listener != null) {
            listener.destroy();
        }
        channel.close();
    }
}
