package io.srdnic.cli.cm;

import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmEventType;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.EventChannel;
import io.srdnic.verbs.cm.RejectReason;
import java.lang.foreign.Arena;

/**
 * The client of cm-pingpong: {@code connections} times over, it connects through the CM (private
 * data "cm-pingpong"), bounces {@code iters} pings off the server, disconnects and waits out
 * TIMEWAIT. For each connection it records how long connect took to ESTABLISHED on its side and on
 * both (the later of its own and the server's, which the first pong carries; both sides read one
 * monotonic clock: one process, one host, or the simulator's). A request the server is not yet
 * there for (no listener, unreachable) is tried again 10 ms later and not measured.
 */
final class CmPingPongClient {
    private static final long RETRY_NANOS = 10_000_000L;
    private static final int MAX_RETRIES = 500;

    private enum Phase { CONNECT, WAIT_ESTABLISHED, PING, WAIT_PONG, WAIT_DOWN, RETRY_WAIT, DONE }

    private final Context context;
    private final EventChannel channel = new EventChannel(16);
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final MemoryRegion mr;
    private final int serverIp;
    private final int port;
    private final int iters;
    private final int connections;
    private final WorkCompletion[] wcs = CompletionQueue.array(8);
    private final RecvWr recv = new RecvWr();
    private final SendWr ping = new SendWr().opcode(SendWr.OP_SEND).numSge(1);
    private final ConnParam connect = new ConnParam().privateData(CmPingPongServer.GREETING);
    final long[] ownSetup;
    final long[] bothSetup;
    final long[] roundTrips;
    private int roundTripCount;
    private Phase phase = Phase.CONNECT;
    private CmId id;
    private QueuePair qp;
    private long connectStart;
    private long establishedAt;
    private long sentAt;
    private long retryAt;
    private int pings;
    private int steps;
    private final int size;
    private int done;
    int retries;
    String failure;

    CmPingPongClient(Context context, int serverIp, int port, int size, int iters, int connections, Arena arena) {
        this.context = context;
        this.serverIp = serverIp;
        this.port = port;
        this.iters = iters;
        this.connections = connections;
        this.size = size;
        this.pd = context.allocPd();
        this.cq = context.createCq(64);
        this.mr = pd.registerMemory(arena.allocate(2L * size, 64), Access.LOCAL_WRITE);
        recv.sge().set(mr, size, size);
        ping.sge(0).set(mr, 0, size);
        ownSetup = new long[connections];
        bothSetup = new long[connections];
        roundTrips = new long[connections * iters];
    }

    boolean done() {
        return phase == Phase.DONE;
    }

    /** Connections made, used and taken down. */
    int completed() {
        return done;
    }

    int roundTripCount() {
        return roundTripCount;
    }

    void step() {
        switch (phase) {
            case CONNECT -> connect();
            case RETRY_WAIT -> {
                if (context.now() - retryAt >= 0) {
                    phase = Phase.CONNECT;
                }
                events();
            }
            case PING -> {
                sentAt = context.now();
                if (qp.postSend(ping) == 0) {
                    phase = Phase.WAIT_PONG;
                }
            }
            case WAIT_PONG -> {
                if ((++steps & 63) == 0) {
                    events(); // now and then: a lost RTU is answered by the server's REP again, which needs our CM to run
                }
                pong();
            }
            default -> events();
        }
    }

    private void connect() {
        id = CmId.create(channel, context);
        id.resolveAddr(serverIp, port);
        id.resolveRoute();
        qp = id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(16).maxRecvWr(16).build());
        qp.postRecv(recv);
        pings = 0;
        connectStart = context.now();
        id.connect(connect);
        phase = Phase.WAIT_ESTABLISHED;
    }

    private void events() {
        CmEvent e = channel.poll();
        if (e == null) {
            return;
        }
        switch (e.type()) {
            case ESTABLISHED -> {
                establishedAt = context.now();
                ownSetup[done] = establishedAt - connectStart;
                boolean ok = e.privateDataLength() == 2 && e.privateData()[0] == 'o' && e.privateData()[1] == 'k';
                if (!ok) {
                    failure = "the server's REP did not carry its private data 'ok'";
                }
                phase = Phase.PING;
            }
            case REJECTED, UNREACHABLE -> {
                boolean notThereYet = e.type() == CmEventType.UNREACHABLE || e.status() == RejectReason.NO_LISTENER;
                if (!notThereYet || ++retries > MAX_RETRIES) {
                    failure = "connection " + done + ": " + e;
                    phase = Phase.DONE;
                } else {
                    phase = Phase.RETRY_WAIT;
                    retryAt = context.now() + RETRY_NANOS;
                }
                qp.destroy();
                id.destroy();
            }
            case TIMEWAIT_EXIT -> {
                qp.destroy();
                id.destroy();
                phase = ++done == connections ? Phase.DONE : Phase.CONNECT;
            }
            default -> {
            }
        }
        channel.ack(e);
    }

    private void pong() {
        int n = cq.poll(wcs);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if (wc.qpNum() != qp.qpNum()) {
                continue; // the previous connection's receive, flushed when its QP went to ERROR
            }
            if (!wc.ok()) {
                failure = "completion " + wc;
                phase = Phase.DONE;
                return;
            }
            if (wc.opcode() == WcOpcode.SEND) {
                continue;
            }
            roundTrips[roundTripCount++] = context.now() - sentAt;
            if (pings == 0) {
                long serverUp = mr.segment().get(CmPingPongServer.TIME, size);
                bothSetup[done] = Math.max(serverUp, establishedAt) - connectStart;
            }
            qp.postRecv(recv);
            if (++pings < iters) {
                phase = Phase.PING;
            } else {
                id.disconnect();
                phase = Phase.WAIT_DOWN;
            }
        }
    }

    void close() {
        channel.close();
    }
}
