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
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.EventChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The server of cm-pingpong, one connection at a time: it listens, accepts each request whose
 * private data says "cm-pingpong" (rejects any other), answers every ping with a pong that carries
 * the time its side saw ESTABLISHED (so the client can tell when both sides were up), and is done
 * once {@code connections} connections have come and gone. {@link #step} never blocks, so a
 * simulator can run it in one thread beside the client.
 */
final class CmPingPongServer {
    static final ValueLayout.OfLong TIME = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final byte[] GREETING = "cm-pingpong".getBytes(StandardCharsets.US_ASCII);

    private final Context context;
    private final EventChannel channel = new EventChannel(16);
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final MemoryRegion mr;
    private final int size;
    private final int connections;
    private final CmId listener;
    private final WorkCompletion[] wcs = CompletionQueue.array(8);
    private final RecvWr recv = new RecvWr();
    private final SendWr pong = new SendWr().opcode(SendWr.OP_SEND).numSge(1);
    private final ConnParam accept = new ConnParam().privateData("ok".getBytes(StandardCharsets.US_ASCII));
    private final List<CmId> draining = new ArrayList<>();
    private CmId id;
    private QueuePair qp;
    private long establishedAt;
    private boolean established;
    private int pingsWaiting;
    private int served;
    private int rejected;

    CmPingPongServer(Context context, int port, int size, int connections, Arena arena) {
        this.context = context;
        this.size = size;
        this.connections = connections;
        this.pd = context.allocPd();
        this.cq = context.createCq(64);
        this.mr = pd.registerMemory(arena.allocate(2L * size, 64), Access.LOCAL_WRITE);
        this.listener = CmId.create(channel, context);
        listener.bind(port);
        listener.listen(4);
        recv.sge().set(mr, size, size);
        pong.sge(0).set(mr, 0, size);
    }

    boolean done() {
        return served == connections;
    }

    int rejected() {
        return rejected;
    }

    /** One round: CM events, then completions. */
    void step() {
        CmEvent e = channel.poll();
        if (e != null) {
            onEvent(e);
            channel.ack(e);
        }
        if (qp == null) {
            return;
        }
        int n = cq.poll(wcs);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if (wc.qpNum() == qp.qpNum() && wc.opcode() != WcOpcode.SEND && wc.ok()) {
                post();
                pingsWaiting++;
            }
        }
        while (pingsWaiting > 0 && established) { // a ping may overtake our RTU's ESTABLISHED: answer once up
            mr.segment().set(TIME, 0, establishedAt);
            if (qp.postSend(pong) != 0) {
                break;
            }
            pingsWaiting--;
        }
    }

    private void onEvent(CmEvent e) {

        switch (e.type()) {
            case CONNECT_REQUEST -> {
                CmId requested = e.id();
                if (id != null || !greeted(e)) { // one connection at a time
                    requested.reject("busy or not cm-pingpong".getBytes(StandardCharsets.US_ASCII), 0, 23);
                    rejected++;
                    return;
                }
                id = requested;
                qp = id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(16).maxRecvWr(16).build());
                post();
                id.accept(accept);
            }
            case ESTABLISHED -> {
                establishedAt = context.now();
                established = true;
            }
            case DISCONNECTED -> {
                if (e.id() == id) { // the next request may come before this one is out of TIMEWAIT
                    draining.add(id);
                    id = null;
                    qp = null;
                    established = false;
                    pingsWaiting = 0;
                }
            }
            case TIMEWAIT_EXIT -> {
                if (draining.remove(e.id())) {
                    e.id().qp().destroy();
                    e.id().destroy();
                    served++;
                }
            }
            case REJECTED, UNREACHABLE -> {
                if (e.id() == id) { // never came up: start over
                    qp.destroy();
                    id.destroy();
                    id = null;
                    qp = null;
                }
            }
            default -> {
            }
        }
    }

    private boolean greeted(CmEvent e) {
        if (e.privateDataLength() < GREETING.length) {
            return false;
        }
        for (int i = 0; i < GREETING.length; i++) {
            if (e.privateData()[i] != GREETING[i]) {
                return false;
            }
        }
        return true;
    }

    private void post() {
        if (qp.postRecv(recv) != 0) {
            throw new VerbsException("receive queue full");
        }
    }

    void close() {
        listener.destroy();
        channel.close();
    }
}
