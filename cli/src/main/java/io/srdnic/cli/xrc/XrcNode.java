package io.srdnic.cli.xrc;

import io.srdnic.srd.api.QpState;
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
import io.srdnic.verbs.SharedReceiveQueue;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.XrcDomain;
import io.srdnic.verbs.XrcQpType;
import io.srdnic.verbs.cm.CmConfig;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.ConnectionManager;
import io.srdnic.verbs.cm.EventChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One node of an XRC all-to-all between two nodes, as seed 001 shapes it: {@code jobs} jobs, each
 * with its own PD, CQ, memory and XRC SRQ in the node's XRC domain, and ONE XRC_SEND QP to the other
 * node, through which it reaches every job there by SRQ number. The connection manager connects each
 * job's XRC_SEND QP to an XRC_RECV QP of the other node (the accept's private data carries that
 * node's SRQ numbers): no side channel. Each job sends {@code messages} messages to every remote job;
 * every message that arrives is checked (who sent it, for whom, its sequence number in its sender's
 * order, every byte). Non-blocking ({@link #step}); the node is done once everything it sent
 * completed, everything for it arrived, and every connection (its own and the peer's) is down.
 */
final class XrcNode implements AutoCloseable {
    /** Each message starts with: sending node, sending job, receiving job, sequence number (4 bytes each). */
    static final int HEADER = 16;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    /**
     * The QPs' local ACK timeout: 4.096 µs × 2^18, about 1.07 s, so a peer is given up only after
     * about 8.6 s of silence (7 retries). Two polling processes on a loaded 2-core machine stall
     * each other for over half a second at times, which the CM's default (14, 67 ms) takes for a
     * dead peer (RETRY_EXCEEDED).
     */
    static final int ACK_TIMEOUT = 18;

    final int node;
    final int jobs;
    final int messages;
    final int size;
    private final Context context;
    private final int peerIp;
    private final int port;
    private final XrcDomain xrcd;
    private final Job[] job;
    private final QueuePair[] targets;
    private final EventChannel channel = new EventChannel(4 * 16);
    private final CmId listener;
    private final CmId[] active;
    private final List<CmId> passive = new ArrayList<>();
    private final int[] peerSrqn;
    private final WorkCompletion[] wcs = CompletionQueue.array(64);
    private boolean requested;
    private int established;
    private int disconnected;
    private boolean disconnecting;
    long delivered;
    long sendsDone;
    String failure;
    /** When the node started, when all its 2 × jobs connections were up, when everything for it had arrived (System.nanoTime). */
    final long startNanos = System.nanoTime();
    long connectedNanos;
    long exchangedNanos;

    /** A job: its PD, memory (receive slots, then send slots), CQ, XRC SRQ and XRC_SEND QP; how far its sends and receives are. */
    private static final class Job {
        MemoryRegion mr;
        CompletionQueue cq;
        SharedReceiveQueue srq;
        QueuePair send;
        SendWr wr = new SendWr().opcode(SendWr.OP_SEND).flags(SendWr.SIGNALED).numSge(1);
        int posted;
        /** The next sequence number expected from each remote job. */
        int[] expected;
    }

    XrcNode(Context context, int node, int peerIp, int port, int jobs, int messages, int size, Arena arena) {
        this.context = context;
        this.node = node;
        this.peerIp = peerIp;
        this.port = port;
        this.jobs = jobs;
        this.messages = messages;
        this.size = size;
        int perJob = jobs * messages; // receives and sends alike
        xrcd = context.openXrcDomain();
        job = new Job[jobs];
        targets = new QueuePair[jobs];
        active = new CmId[jobs];
        peerSrqn = new int[jobs];
        RecvWr recv = new RecvWr();
        for (int j = 0; j < jobs; j++) {
            Job b = new Job();
            ProtectionDomain pd = context.allocPd();
            b.mr = pd.registerMemory(arena.allocate(2L * perJob * size, 64), Access.LOCAL_WRITE);
            b.cq = context.createCq(2 * perJob + 16);
            b.srq = pd.createXrcSrq(xrcd, b.cq, perJob, 1, 0);
            for (int s = 0; s < perJob; s++) {
                recv.wrId(s).sge().set(b.mr, (long) s * size, size);
                b.srq.postSrqRecv(recv);
            }
            b.send = pd.createQueuePair(QpInitAttributes.xrcSend(b.cq).maxSendWr(Math.min(perJob, 256)).build());
            b.expected = new int[jobs];
            job[j] = b;
            targets[j] = xrcd.createRecvQueuePair();
        }
        // A DPDK link may take a second or two to come up under the first requests: 100 tries of 50 ms, not the CM's 5.
        ConnectionManager.of(context, new CmConfig().maxRetries(100));
        listener = CmId.create(channel, context, XrcQpType.XRC_RECV);
        listener.bind(port);
        listener.listen(jobs);
    }

    /**
     * Connects each job's XRC_SEND QP to the peer (which must be listening): at once if {@code
     * first}, else when the peer's first request comes.
     */
    void start(boolean first) {
        if (first) {
            connectAll();
        }
    }

    private void connectAll() {
        requested = true;
        ConnParam p = new ConnParam();
        for (int j = 0; j < jobs; j++) {
            CmId id = CmId.create(channel, context, XrcQpType.XRC_SEND);
            id.resolveAddr(peerIp, port);
            id.resolveRoute();
            id.attachQp(job[j].send);
            id.setAckTimeout(ACK_TIMEOUT);
            id.connect(p.privateData(new byte[] {(byte) j}));
            active[j] = id;
        }
    }

    /** One round: a CM event, each job's completions, more sends once connected, the disconnect once all is done. */
    void step() {
        CmEvent e = channel.poll();
        if (e != null) {
            try {
                onEvent(e);
            } finally {
                channel.ack(e);
            }
        }
        for (int j = 0; j < jobs; j++) {
            Job b = job[j];
            int n = b.cq.poll(wcs);
            for (int i = 0; i < n; i++) {
                onCompletion(j, wcs[i]);
            }
            if (established == 2 * jobs && failure == null) {
                post(j);
            }
        }
        long total = (long) jobs * jobs * messages;
        if (!disconnecting && delivered == total && sendsDone == total && failure == null) {
            exchangedNanos = System.nanoTime();
            disconnecting = true;
            for (CmId id : active) {
                id.disconnect();
            }
        }
    }

    private void onEvent(CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> {
                int from = e.privateDataLength() == 1 ? e.privateData()[0] : -1;
                CmId id = e.id();
                if (from < 0 || from >= jobs || targets[from].state() != QpState.RESET) {
                    id.reject();
                    id.destroy();
                    return;
                }
                passive.add(id);
                id.attachQp(targets[from]);
                id.setAckTimeout(ACK_TIMEOUT);
                ByteBuffer numbers = ByteBuffer.allocate(4 * jobs);
                for (Job b : job) {
                    numbers.putInt(b.srq.srqNumber());
                }
                id.accept(new ConnParam().privateData(numbers.array()));
                if (!requested) { // the peer listens: it asked us
                    connectAll();
                }
            }
            case ESTABLISHED -> {
                if (!e.id().isPassive()) {
                    ByteBuffer numbers = ByteBuffer.wrap(e.privateData(), 0, e.privateDataLength());
                    for (int k = 0; k < jobs && numbers.remaining() >= 4; k++) {
                        peerSrqn[k] = numbers.getInt();
                    }
                }
                if (++established == 2 * jobs) {
                    connectedNanos = System.nanoTime();
                }
            }
            case DISCONNECTED -> disconnected++;
            case ADDR_RESOLVED, ROUTE_RESOLVED, TIMEWAIT_EXIT -> {
            }
            default -> fail("CM: " + e);
        }
    }

    /** Posts job {@code j}'s next sends, round-robin over the remote jobs, while its send queue takes them. */
    private void post(int j) {
        Job b = job[j];
        int perJob = jobs * messages;
        while (b.posted < perJob) {
            int k = b.posted % jobs;
            int seq = b.posted / jobs;
            long at = (long) (perJob + b.posted) * size;
            fill(b.mr.segment(), at, node, j, k, seq, size);
            b.wr.wrId(b.posted).remoteSrqn(peerSrqn[k]).sge(0).set(b.mr, at, size);
            if (b.send.postSend(b.wr) != 0) {
                return; // full: the next round
            }
            b.posted++;
        }
    }

    private void onCompletion(int j, WorkCompletion wc) {
        if (!wc.ok()) {
            fail("job " + j + ": " + wc);
            return;
        }
        if (wc.opcode() == WcOpcode.SEND) {
            sendsDone++;
            return;
        }
        Job b = job[j];
        long at = wc.wrId() * size;
        MemorySegment s = b.mr.segment();
        int fromNode = s.get(INT, at);
        int fromJob = s.get(INT, at + 4);
        int toJob = s.get(INT, at + 8);
        int seq = s.get(INT, at + 12);
        if (wc.byteLength() != size || fromNode != 1 - node || toJob != j || fromJob < 0 || fromJob >= jobs
            || seq != b.expected[fromJob]) {
            fail("job " + j + " got a message of " + wc.byteLength() + " B from node " + fromNode + " job " + fromJob + " for job " + toJob
                + " seq " + seq + (fromJob >= 0 && fromJob < jobs ? ", expected seq " + b.expected[fromJob] : ""));
            return;
        }
        for (int i = HEADER; i < size; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, at + i) != pattern(fromNode, fromJob, toJob, seq, i)) {
                fail("job " + j + ": byte " + i + " of seq " + seq + " from job " + fromJob + " is not what was sent");
                return;
            }
        }
        b.expected[fromJob]++;
        delivered++;
    }

    /** Writes message {@code seq} from (node, job) to remote job {@code to} at {@code at}: the header, then the pattern. */
    static void fill(MemorySegment s, long at, int node, int job, int to, int seq, int size) {
        s.set(INT, at, node);
        s.set(INT, at + 4, job);
        s.set(INT, at + 8, to);
        s.set(INT, at + 12, seq);
        for (int i = HEADER; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, at + i, pattern(node, job, to, seq, i));
        }
    }

    static byte pattern(int node, int job, int to, int seq, int i) {
        return (byte) (node * 31 + job * 7 + to * 3 + seq + i);
    }

    private void fail(String why) {
        if (failure == null) {
            failure = "node " + node + ": " + why;
        }
    }

    /** Everything sent completed, everything expected arrived and checked, and all 2 × jobs connections are down (or it failed). */
    boolean done() {
        return failure != null || (disconnecting && disconnected == 2 * jobs);
    }

    /** QPs this node holds: an XRC_SEND QP per job and an XRC_RECV QP per remote job's connection. */
    int qps() {
        return 2 * jobs;
    }

    @Override
    public void close() {
        for (CmId id : active) {
            if (id != null) {
                id.destroy();
            }
        }
        for (CmId id : passive) {
            id.destroy();
        }
        listener.destroy();
        channel.close();
    }
}
