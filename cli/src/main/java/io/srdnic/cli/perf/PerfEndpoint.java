package io.srdnic.cli.perf;

import io.srdnic.cli.perf.PerfParams.Op;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.SharedReceiveQueue;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.XrcDomain;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One side's verbs resources, as ib_send_lat/ib_send_bw set them up: a PD, one CQ for sends and
 * receives of all QPs, {@code qps} QPs of the run's type taken to RTS with every receive posted,
 * one registered region of receive slots and one of send buffers, and — once the peer's
 * {@link PeerInfo} is known — an address handle and a reusable send work request per QP
 * (QP i sends to the peer's QP i, SEND_WITH_IMM, the immediate carrying the sequence number).
 * <p>
 * With {@code --op write} or {@code read}, as ib_write_* and ib_read_* do, the messages are RDMA
 * requests naming one region of {@code size} bytes that the other side registered and told about
 * in its {@link PeerInfo} (all QPs share it, and every message carries the same {@link Pattern}):
 * <ul>
 * <li>write: the client WRITEs from a region holding the pattern into the server's, zeroed at the
 *   start, REMOTE_WRITE; in latency mode WRITE WITH_IMM, and the server WRITEs WITH_IMM what arrived
 *   back into a zeroed REMOTE_WRITE region of the client's.</li>
 * <li>read: the server's region holds the pattern, REMOTE_READ; the client READs it into a zeroed
 *   region of its own.</li>
 * </ul>
 * The side the bytes land on checks its region against the pattern at the end ({@link #checkPayload}).
 * <p>
 * RC ({@code --transport rc}) QPs are connected: each is taken to INIT here, with its receives
 * posted, and to RTR and RTS by the connection manager ({@link #listenCm} on the server,
 * {@link #connectCm} on the client: {@link RcCmConnector}), which tells each side the other's QP
 * numbers and first PSNs over the link itself. An RC SEND may be up to 1 GiB (the transport cuts
 * it at the path MTU), so its bytes are handled as WRITE's are: the client sends from a region holding
 * the pattern, every receive of a side lands in one zeroed region of {@code size} bytes (the server's
 * checked at the end; in latency mode the server sends back from it what arrived, into the client's,
 * checked too), and no receive slot needs the message's size.
 * <p>
 * SRC ({@code --transport src}) is RC's message layer in the XRC shape: QP i of {@link #qps} is an
 * XRC_SEND QP, and beside it an XRC_RECV QP ({@code targets[i]}) in this side's XRC domain receives
 * the peer's; every receive is posted to one XRC SRQ, on the one CQ, and every message names the
 * peer's SRQ ({@code remoteSrqn}). The CM connects each way (this side's XRC_SEND QP i to the peer's
 * XRC_RECV QP i, and back), and the accepts tell the SRQ numbers and regions.
 * Closing it closes the context.
 */
final class PerfEndpoint implements AutoCloseable {
    final Context context;
    final PerfParams params;
    final CompletionQueue cq;
    final QueuePair[] qps;
    final SendWr[] sends;
    final WorkCompletion[] wcs = CompletionQueue.array(64);
    private final ProtectionDomain pd;
    private final MemoryRegion sendMr;
    private final MemoryRegion recvMr;
    /** RDMA: the region the other side's requests name (told in {@link #info()}), or null. */
    private MemoryRegion exposed;
    /** RDMA: the region this side's own requests take their bytes from or land them in, or null. */
    private MemoryRegion local;
    /** RDMA: the region the other side's bytes land in here, checked at the end, or null. */
    private MemoryRegion landing;
    private final boolean client;
    private final RecvWr recv = new RecvWr();
    private final int slot;
    private final int recvDepth;
    private final int qkey;
    private final int[] indexByQpn;
    /** RC and SRC: what connects the QPs through the CM, until the endpoint closes; else null. */
    private PerfCmConnector connector;
    /** SRC: the XRC domain, the SRQ every receive of this side is posted to, and the XRC_RECV QPs the peer's QPs connect to; else null. */
    private XrcDomain xrcd;
    private SharedReceiveQueue srq;
    private QueuePair[] targets;
    /** Where receives land: their region, the stride between two, and the length of each. */
    private MemoryRegion recvRegion;
    private long recvStride;
    private int recvLength;
    private AddressHandle toPeer;

    PerfEndpoint(Context context, PerfParams params, int qkey, boolean client) {
        this.context = context;
        this.params = params;
        this.qkey = qkey;
        this.client = client;
        boolean connected = params.transport().connected;
        if (!params.op().rdma() && !connected && params.size() > context.mtu()) {
            context.close();
            throw new IllegalArgumentException("--size " + params.size() + " is over this link's SRD MTU " + context.mtu()
                + " (one message is one packet: no segmentation on SRD and UD)");
        }
        if ((params.op().rdma() || connected) && params.size() > context.queryDevice().maxRdmaSize()) {
            context.close();
            throw new IllegalArgumentException("--size " + params.size() + " is over this transport's largest "
                + (params.op().rdma() ? "RDMA transfer " : "RC message ") + context.queryDevice().maxRdmaSize());
        }
        if (connected && pathMtu(context.mtu()) == 0) {
            context.close();
            throw new IllegalArgumentException("this link's MTU " + context.mtu() + " is below RC's smallest path MTU, 256 B");
        }
        try {
            this.pd = context.allocPd();
            this.cq = context.createCq(params.cqDepth());
            this.recvDepth = params.recvDepth();
            // RDMA payloads and RC SENDs are in regions of their own: the send and receive slots carry none (a WRITE WITH_IMM takes a
            // receive, no bytes).
            this.slot = params.op().rdma() || params.checkedSends() ? 64 : Math.max(64, (params.size() + 63) & ~63);
            QpType type = params.transport().qpType;
            this.qps = new QueuePair[params.qps()];
            this.sends = new SendWr[params.qps()];
            this.sendMr = pd.allocateRegion((long) params.qps() * slot, Access.LOCAL_WRITE);
            this.recvMr = pd.allocateRegion((long) params.qps() * recvDepth * slot, Access.LOCAL_WRITE);
            registerPayloadRegions();
            if (params.checkedSends() && landing != null) {
                recvRegion = landing; // every receive lands in the one region (a SEND takes one receive, whatever its length)
                recvStride = 0;
                recvLength = params.size();
            } else {
                recvRegion = recvMr;
                recvStride = slot;
                recvLength = slot;
            }
            boolean src = type == QpType.SRC;
            if (src) {
                xrcd = context.openXrcDomain();
                srq = pd.createXrcSrq(xrcd, cq, params.qps() * recvDepth, 1, 0);
                targets = new QueuePair[params.qps()];
            }
            int maxQpn = 0;
            for (int i = 0; i < qps.length; i++) {
                QueuePair qp = src ? pd.createQueuePair(QpInitAttributes.xrcSend(cq).maxSendWr(params.sendDepth()).build())
                    : pd.createQueuePair(QpInitAttributes.builder(type).cq(cq).maxSendWr(params.sendDepth()).maxRecvWr(recvDepth).build());
                qps[i] = qp;
                if (src) { // the CM takes both halves from RESET; the receives go to the SRQ
                    targets[i] = xrcd.createRecvQueuePair();
                    maxQpn = Math.max(maxQpn, targets[i].qpNum());
                } else if (connected) {
                    qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                        .accessFlags(QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ));
                } else {
                    qp.modify(QpState.INIT, qkey);
                }
                for (int s = 0; s < recvDepth; s++) {
                    post(i * recvDepth + s);
                }
                if (!connected) { // RC goes to RTR and RTS once the peer's QPN and PSN are known (connect)
                    qp.modify(QpState.RTR, 0);
                    if (client && type == QpType.SRD && !params.latency()) {
                        // A receiver slow to repost backs the sender off instead of failing the run; set in the
                        // modify to RTS (not QueuePair.rnrRetry), which an attached context serves too.
                        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(0).rnrRetry(7));
                    } else {
                        qp.modify(QpState.RTS, 0);
                    }
                }
                maxQpn = Math.max(maxQpn, qp.qpNum());
            }
            this.indexByQpn = new int[maxQpn + 1];
            for (int i = 0; i < qps.length; i++) {
                indexByQpn[qps[i].qpNum()] = i;
                if (targets != null) {
                    indexByQpn[targets[i].qpNum()] = i; // a receive completes with the XRC_RECV QP's number
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The regions of {@code --op write|read} and of RC SENDs (none for SRD and UD sends), each of {@code size} bytes. */
    private void registerPayloadRegions() {
        Op op = params.op();
        if (params.checkedSends() && client) {
            local = region(true, Access.LOCAL_WRITE);
            landing = params.latency() ? region(false, Access.LOCAL_WRITE) : null;
        } else if (params.checkedSends()) {
            landing = region(false, Access.LOCAL_WRITE);
            local = landing; // latency mode: the reply is what arrived
        } else if (op == Op.write && client) {
            local = region(true, Access.LOCAL_WRITE);
            landing = params.latency() ? region(false, Access.LOCAL_WRITE | Access.REMOTE_WRITE) : null;
            exposed = landing;
        } else if (op == Op.write) {
            landing = region(false, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            exposed = landing;
            local = landing; // latency mode: the reply is what arrived
        } else if (op == Op.read && client) {
            local = region(false, Access.LOCAL_WRITE);
            landing = local;
        } else if (op == Op.read) {
            exposed = region(true, Access.REMOTE_READ);
        }
    }

    /** A region of {@code size} bytes, zeroed or holding the pattern (one byte of it flipped with --corrupt-payload). */
    private MemoryRegion region(boolean pattern, int access) {
        MemoryRegion mr = pd.allocateRegion(params.size(), access);
        MemorySegment s = mr.segment();
        if (pattern) {
            Pattern.fill(s, params.size(), params.runId());
            if (params.corruptPayload()) {
                long at = params.size() / 2;
                s.set(ValueLayout.JAVA_BYTE, at, (byte) ~s.get(ValueLayout.JAVA_BYTE, at));
            }
        }
        return mr;
    }

    /**
     * Listens for the peer's CM requests, one per QP (RC: the server's QPs; SRC: either side's
     * XRC_RECV QPs), and tells the peer its RDMA region and SRQ in each accept; call before telling
     * the peer {@link #info()}.
     */
    PerfCmConnector listenCm() {
        connector().listen(targets != null ? targets : qps);
        return connector;
    }

    /**
     * Asks the peer's CM at {@code peerIp} to connect each QP (RC: the client's; SRC: either side's
     * XRC_SEND QPs) to its QP of the same index.
     */
    PerfCmConnector connectCm(int peerIp) {
        connector().connect(qps, peerIp);
        return connector;
    }

    /** SRC: both sides listen and both request (one connection each way per QP); RC: the server listens, the client requests. */
    boolean bothWays() {
        return targets != null;
    }

    private PerfCmConnector connector() {
        if (connector == null) {
            connector = new PerfCmConnector(context, targets != null, exposedAddress(), exposedRkey(), srq == null ? 0 : srq.srqNumber(),
                params.ackTimeout());
        }
        return connector;
    }

    private long exposedAddress() {
        return exposed == null ? 0 : exposed.segment().address();
    }

    private int exposedRkey() {
        return exposed == null ? 0 : exposed.rkey();
    }

    /** RC: the largest path MTU (256, 512, 1024, 2048 or 4096 B) within the link's {@code mtu}; 0 if none is. */
    static int pathMtu(int mtu) {
        for (int p = 4096; p >= 256; p >>= 1) {
            if (p <= mtu) {
                return p;
            }
        }
        return 0;
    }

    PeerInfo info() {
        int[] qpns = new int[qps.length];
        for (int i = 0; i < qps.length; i++) {
            qpns[i] = qps[i].qpNum();
        }
        if (params.transport().connected) { // the region goes in the CM's private data
            return new PeerInfo(context.mac(), context.ip(), context.udpPort(), qkey, qpns);
        }
        return new PeerInfo(context.mac(), context.ip(), context.udpPort(), qkey, qpns, exposedAddress(), exposedRkey());
    }

    /**
     * Connects two endpoints driven by one thread (a simulator's): RC QPs through both CMs, stepped
     * in turn until every pair is up, then each side's address handle and work requests.
     */
    static void connectInOneThread(PerfEndpoint server, PerfEndpoint client, long deadlineNanos) {
        if (server.params.transport().connected) {
            PerfCmConnector listening = server.listenCm();
            if (client.bothWays()) {
                client.listenCm();
                server.connectCm(client.context.ip());
            }
            PerfCmConnector connecting = client.connectCm(server.context.ip());
            boolean serverDone = false;
            boolean clientDone = false;
            while (!(serverDone && clientDone)) {
                serverDone = listening.step();
                clientDone = connecting.step();
                if (System.nanoTime() - deadlineNanos > 0) {
                    throw new IllegalStateException("the CM did not connect the " + server.params.transport()
                            + " QPs within the time limit");
                }
            }
        }
        server.connect(client.info());
        client.connect(server.info());
    }

    /**
     * Makes the address handle and the send work requests for the peer (RC: its QPs connected, its
     * region told, through the CM already).
     */
    void connect(PeerInfo peer) {
        if (peer.qpns().length != qps.length) {
            throw new IllegalStateException("the other side has " + peer.qpns().length + " QPs, this side " + qps.length);
        }
        toPeer = pd.createAddressHandle(peer.mac(), peer.ip(), peer.udpPort());
        boolean connected = params.transport().connected;
        if (params.op().rdma() && !client && !params.serverReplies()) {
            return; // this side posts nothing: the client's requests are answered by the transport
        }
        // RC: the peer's region came in the CM's private data; SRD and UD: in its INFO.
        long peerAddress = connected ? connector.peerAddress() : peer.rdmaAddress();
        int peerRkey = connected ? connector.peerRkey() : peer.rkey();
        if (params.op().rdma() && peerAddress == 0) {
            throw new IllegalStateException("the other side told of no memory region for --op " + params.op());
        }
        // Latency mode waits for the reply, never for its own send: the sends go unsignaled (a failed
        // one still completes, with its error), so no send completion costs either side a CQ entry
        // and a poll per round trip. Bandwidth mode counts its sends by their completions, and a READ
        // is its own reply.
        int flags = params.latency() && params.op() != Op.read ? 0 : SendWr.SIGNALED;
        int opcode = switch (params.op()) {
            case send -> SendWr.OP_SEND_WITH_IMM;
            // Latency mode: WITH_IMM, so the peer's receive queue says when all of it is there (SRD lands a
            // WRITE's packets in any order: its last byte says nothing). Bandwidth mode: plain WRITEs.
            case write -> params.latency() ? SendWr.OP_RDMA_WRITE_WITH_IMM : SendWr.OP_RDMA_WRITE;
            case read -> SendWr.OP_RDMA_READ;
        };
        for (int i = 0; i < qps.length; i++) {
            SendWr wr = new SendWr().opcode(opcode).flags(flags);
            if (!connected) { // an RC QP's destination was fixed at RTR: its work requests name none
                wr.destination(toPeer, peer.qpns()[i], peer.qkey());
            }
            if (srq != null) { // SRC: every message names the peer's SRQ, told in its accept
                wr.remoteSrqn(connector.peerSrqNumber());
            }
            if (params.op().rdma()) {
                wr.sge(0).set(local, 0, params.size());
                wr.rdma(peerAddress, peerRkey);
            } else if (params.checkedSends()) {
                wr.sge(0).set(local, 0, params.size());
            } else {
                wr.sge(0).set(sendMr, (long) i * slot, params.size());
            }
            sends[i] = wr.numSge(1);
        }
    }

    /** Whether a completion is of a receive (a SEND's, or a WRITE WITH_IMM's), not of this side's own request. */
    static boolean isReceive(int opcode) {
        return opcode == WcOpcode.RECV || opcode == WcOpcode.RECV_WITH_IMM || opcode == WcOpcode.RECV_RDMA_WITH_IMM;
    }

    /**
     * RDMA: whether the region the other side's bytes land in here holds the pattern, every byte
     * ({@link PayloadCheck#NONE} where none land here). Call it once no more are coming.
     */
    PayloadCheck checkPayload() {
        if (landing == null) {
            return PayloadCheck.NONE;
        }
        return new PayloadCheck(params.size(), Pattern.firstMismatch(landing.segment(), params.size(), params.runId()));
    }

    /**
     * Posts a send: 0, or ENOMEM when its queue is full. A QP the transport put in ERROR (an RC
     * connection that failed) refuses the post; the exception thrown names the first failed
     * completion: {@code seen}, the one the caller already polled (null: none), or else the first
     * in the CQ.
     */
    int postSend(QueuePair qp, SendWr wr, String seen) {
        try {
            return qp.postSend(wr);
        } catch (VerbsException e) {
            throw new IllegalStateException(e.getMessage() + (seen != null ? "; first failed completion: " + seen : firstFailure()), e);
        }
    }

    /** The first completion with an error status in the CQ, as "; first failed completion: STATUS (OPCODE)", or "". */
    private String firstFailure() {
        for (int n = cq.poll(wcs); n > 0; n = cq.poll(wcs)) {
            for (int i = 0; i < n; i++) {
                if (!wcs[i].ok()) {
                    return "; first failed completion: " + wcs[i].statusName() + " (" + WcOpcode.name(wcs[i].opcode()) + ")";
                }
            }
        }
        return "";
    }

    /** Posts the receive a completion used again (its slot is in the work request id). */
    void repost(WorkCompletion wc) {
        post((int) wc.wrId());
    }

    private void post(int slotIndex) {
        recv.wrId(slotIndex).sge().set(recvRegion, slotIndex * recvStride, recvLength);
        int rc = srq != null ? srq.postSrqRecv(recv) : qps[slotIndex / recvDepth].postRecv(recv);
        if (rc != 0) {
            throw new IllegalStateException("receive queue refused a repost (" + rc + "): more receives than its depth?");
        }
    }

    /** The index of the local QP with number {@code qpn}. */
    int qpIndex(int qpn) {
        return indexByQpn[qpn];
    }

    @Override
    public void close() {
        if (connector != null) {
            connector.close();
        }
        context.close(); // and with it the regions' memory (allocateRegion's: the context's arena, or the attached pool)
    }
}
