package io.srdnic.cli.perf;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.XrcQpType;
import io.srdnic.verbs.cm.CmConfig;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmEventType;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.ConnectionManager;
import io.srdnic.verbs.cm.EventChannel;
import io.srdnic.verbs.cm.RejectReason;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Connects perf's connected QPs through the connection manager, QP i to the peer's QP i. A side
 * listens on {@link #PORT} (before it tells the peer it is there) and attaches its accepting QP of
 * the index a request names; the other side sends one request per QP, its private data naming the
 * index. RC: the server listens, the client requests. SRC (the XRC shape): each side does both —
 * its XRC_SEND QP i connects to the peer's XRC_RECV QP i, so each way has its own connection.
 * <p>
 * The private data of both the request and the accept carries what the peer's requests name (as
 * RTRS and rsockets pass it): the RDMA region's address and rkey and, for SRC, the number of the
 * SRQ the messages land in ({@link #privateData}); no address, rkey or SRQ number crosses perf's
 * side channel. The CM takes each QP to RTR and RTS (READs and atomics up to the transport's most,
 * 7 retries, RNR retried for ever, as perftest sets them; the RNR timer at 0.01 ms). Non-blocking
 * ({@link #step}), so one thread can drive both sides on a simulator.
 */
final class PerfCmConnector implements AutoCloseable {
    /** The CM service port perf listens on (the port space is the CM's, not UDP's). */
    static final int PORT = 18515;
    /** IBTA code 1, 0.01 ms: a receiver reposts at once, so a sender told RNR tries again soon (as perf did before the CM). */
    static final int MIN_RNR_TIMER = 1;
    /** Private data: the QP's index (2 bytes), this side's RDMA region (address 8, rkey 4; zeros: none) and SRC SRQ number (4; 0: RC). */
    static final int PRIVATE_DATA = 18;
    /** rdma_cm's 15 retries (CMA_MAX_CM_RETRIES) rather than the CM's 5: perf runs on lossy simulated links too. */
    private static final CmConfig CM_CONFIG = new CmConfig().maxRetries(15);

    private final Context context;
    /** The XRC half this side's requests connect (XRC_SEND), or null for RC. */
    private final XrcQpType requesting;
    private final EventChannel channel = new EventChannel(16);
    private final List<CmId> ids = new ArrayList<>();
    private final ConnParam param = new ConnParam().responderResources(QpAttributes.RD_ATOMIC_LIMIT)
        .initiatorDepth(QpAttributes.RD_ATOMIC_LIMIT).retryCount(7).rnrRetryCount(7);
    private final ByteBuffer data = ByteBuffer.allocate(PRIVATE_DATA);
    private final long regionAddress;
    private final int regionRkey;
    private final int srqNumber;
    /** The QPs' local ACK timeout code, set before each connect and accept; 0: the CM's default. */
    private final int ackTimeout;
    private QueuePair[] accepting;
    private CmId listener;
    private int expected;
    private int established;
    private long peerAddress;
    private int peerRkey;
    private int peerSrqNumber;

    /**
     * A side's connector: {@code src} for SRC QPs in the XRC shape, else RC; what it tells the peer
     * in its private data: the region at {@code regionAddress} (0: none) and the SRQ {@code srqNumber}
     * the peer's SRC messages name (0: RC).
     */
    PerfCmConnector(Context context, boolean src, long regionAddress, int regionRkey, int srqNumber, int ackTimeout) {
        ConnectionManager.of(context, CM_CONFIG);
        this.context = context;
        this.requesting = src ? XrcQpType.XRC_SEND : null;
        this.regionAddress = regionAddress;
        this.regionRkey = regionRkey;
        this.srqNumber = srqNumber;
        this.ackTimeout = ackTimeout;
    }

    /**
     * Listens for the peer's requests, one per QP of {@code qps} (RC QPs, or XRC_RECV QPs for SRC),
     * each accepted on the QP of its index.
     */
    void listen(QueuePair[] qps) {
        accepting = qps;
        listener = requesting == null ? CmId.create(channel, context) : CmId.create(channel, context, XrcQpType.XRC_RECV);
        listener.bind(PORT);
        listener.listen(qps.length);
        expected += qps.length;
    }

    /** Sends one request per QP of {@code qps} (RC, or XRC_SEND for SRC) to the peer's CM at {@code peerIp}. */
    void connect(QueuePair[] qps, int peerIp) {
        for (int i = 0; i < qps.length; i++) {
            CmId id = requesting == null ? CmId.create(channel, context) : CmId.create(channel, context, requesting);
            ids.add(id);
            id.resolveAddr(peerIp, PORT);
            id.resolveRoute();
            id.attachQp(qps[i]);
            tune(id);
            id.connect(param.privateData(privateData(i)));
        }
        expected += qps.length;
    }

    /** What this side sets on each id before it connects or accepts: the RNR timer, and the local ACK timeout if asked. */
    private void tune(CmId id) {
        id.setMinRnrTimer(MIN_RNR_TIMER);
        if (ackTimeout > 0) {
            id.setAckTimeout(ackTimeout);
        }
    }

    /** This side's private data for QP {@code index}: its index, then what the peer's requests name. */
    private byte[] privateData(int index) {
        return data.clear().putShort((short) index).putLong(regionAddress).putInt(regionRkey).putInt(srqNumber).array();
    }

    /** Takes what the peer's requests name from its private data ({@code length} bytes of {@code bytes}); each QP's says the same. */
    private void learn(byte[] bytes, int length) {
        if (length == PRIVATE_DATA) {
            ByteBuffer b = ByteBuffer.wrap(bytes, 2, PRIVATE_DATA - 2);
            peerAddress = b.getLong();
            peerRkey = b.getInt();
            peerSrqNumber = b.getInt();
        }
    }

    /** The address of the peer's RDMA region (0: it told of none); valid once {@link #step} is true. */
    long peerAddress() {
        return peerAddress;
    }

    int peerRkey() {
        return peerRkey;
    }

    /** SRC: the number of the peer's SRQ, which this side's messages name; valid once {@link #step} is true. */
    int peerSrqNumber() {
        return peerSrqNumber;
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
        return expected > 0 && established == expected;
    }

    /** Steps until every QP is connected, or throws at {@code deadlineNanos} (System.nanoTime). */
    void await(long deadlineNanos) {
        while (!step()) {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new IllegalStateException("the CM connected " + established + " of " + expected + " QPs before the time limit");
            }
        }
    }

    private void onEvent(CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> {
                int index = e.privateDataLength() == PRIVATE_DATA ? (e.privateData()[0] & 0xFF) << 8 | (e.privateData()[1] & 0xFF) : -1;
                CmId id = e.id();
                if (index < 0 || index >= accepting.length
                    || (accepting[index].state() != QpState.INIT && accepting[index].state() != QpState.RESET)) {
                    id.reject();
                    id.destroy();
                    return;
                }
                ids.add(id);
                learn(e.privateData(), e.privateDataLength()); // RC: the client's region, for the server's WRITEs back
                id.attachQp(accepting[index]);
                tune(id);
                id.accept(param.privateData(privateData(index)));
            }
            case ESTABLISHED -> {
                if (!e.id().isPassive()) { // this side's request: the accept names what this side's QP sends to
                    learn(e.privateData(), e.privateDataLength());
                }
                established++;
            }
            case ADDR_RESOLVED, ROUTE_RESOLVED, TIMEWAIT_EXIT -> {
            }
            default -> throw new IllegalStateException("connecting " + (requesting == null ? "RC" : "SRC") + " QPs through the CM: " + e
                + (e.type() == CmEventType.REJECTED && (e.status() == RejectReason.NO_LISTENER
                        || e.status() == RejectReason.INVALID_TRANSPORT_TYPE)
                    ? " (is the other side running the same --transport?)" : ""));
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
