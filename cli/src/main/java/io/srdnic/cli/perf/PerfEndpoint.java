package io.srdnic.cli.perf;

import io.srdnic.srd.transport.QpState;
import io.srdnic.srd.transport.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.Arena;

/**
 * One side's verbs resources, as ib_send_lat/ib_send_bw set them up: a PD, one CQ for sends and
 * receives of all QPs, {@code qps} QPs of the run's type taken to RTS with every receive posted,
 * one registered region of receive slots and one of send buffers, and — once the peer's
 * {@link PeerInfo} is known — an address handle and a reusable send work request per QP
 * (QP i sends to the peer's QP i, SEND_WITH_IMM, the immediate carrying the sequence number).
 * Closing it closes the context.
 */
final class PerfEndpoint implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    final Context context;
    final PerfParams params;
    final CompletionQueue cq;
    final QueuePair[] qps;
    final SendWr[] sends;
    final WorkCompletion[] wcs = CompletionQueue.array(64);
    private final ProtectionDomain pd;
    private final MemoryRegion sendMr;
    private final MemoryRegion recvMr;
    private final RecvWr recv = new RecvWr();
    private final int slot;
    private final int recvDepth;
    private final int qkey;
    private final int[] indexByQpn;
    private AddressHandle toPeer;

    PerfEndpoint(Context context, PerfParams params, int qkey, boolean client) {
        this.context = context;
        this.params = params;
        this.qkey = qkey;
        if (params.size() > context.mtu()) {
            context.close();
            throw new IllegalArgumentException("--size " + params.size() + " is over this link's SRD MTU " + context.mtu()
                + " (one message is one packet: no segmentation on SRD and UD)");
        }
        try {
            this.pd = context.allocPd();
            this.cq = context.createCq(params.cqDepth());
            this.recvDepth = params.recvDepth();
            this.slot = Math.max(64, (params.size() + 63) & ~63);
            QpType type = params.transport().qpType;
            this.qps = new QueuePair[params.qps()];
            this.sends = new SendWr[params.qps()];
            this.sendMr = pd.registerMemory(arena.allocate((long) params.qps() * slot, 64), Access.LOCAL_WRITE);
            this.recvMr = pd.registerMemory(arena.allocate((long) params.qps() * recvDepth * slot, 64), Access.LOCAL_WRITE);
            int maxQpn = 0;
            for (int i = 0; i < qps.length; i++) {
                QueuePair qp = pd.createQueuePair(type, cq, cq, params.sendDepth(), recvDepth, 1, 0);
                qps[i] = qp;
                qp.modify(QpState.INIT, qkey);
                for (int s = 0; s < recvDepth; s++) {
                    post(i * recvDepth + s);
                }
                qp.modify(QpState.RTR, 0);
                qp.modify(QpState.RTS, 0);
                if (client && type == QpType.SRD && !params.latency()) {
                    qp.rnrRetry(7); // a receiver slow to repost backs the sender off instead of failing the run
                }
                maxQpn = Math.max(maxQpn, qp.qpNum());
            }
            this.indexByQpn = new int[maxQpn + 1];
            for (int i = 0; i < qps.length; i++) {
                indexByQpn[qps[i].qpNum()] = i;
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    PeerInfo info() {
        int[] qpns = new int[qps.length];
        for (int i = 0; i < qps.length; i++) {
            qpns[i] = qps[i].qpNum();
        }
        return new PeerInfo(context.mac(), context.ip(), context.udpPort(), qkey, qpns);
    }

    /** Makes the address handle and the send work requests for the peer. */
    void connect(PeerInfo peer) {
        if (peer.qpns().length != qps.length) {
            throw new IllegalStateException("the other side has " + peer.qpns().length + " QPs, this side " + qps.length);
        }
        toPeer = pd.createAddressHandle(peer.mac(), peer.ip(), peer.udpPort());
        // Latency mode waits for the reply, never for its own send: the sends go unsignaled (a failed
        // one still completes, with its error), so no send completion costs either side a CQ entry
        // and a poll per round trip. Bandwidth mode counts its sends by their completions.
        int flags = params.latency() ? 0 : SendWr.SIGNALED;
        for (int i = 0; i < qps.length; i++) {
            SendWr wr = new SendWr().opcode(SendWr.OP_SEND_WITH_IMM).flags(flags).destination(toPeer, peer.qpns()[i], peer.qkey());
            wr.sge(0).set(sendMr, (long) i * slot, params.size());
            sends[i] = wr.numSge(1);
        }
    }

    /** Posts the receive a completion used again (its slot is in the work request id). */
    void repost(WorkCompletion wc) {
        post((int) wc.wrId());
    }

    private void post(int slotIndex) {
        recv.wrId(slotIndex).sge().set(recvMr, (long) slotIndex * slot, slot);
        int rc = qps[slotIndex / recvDepth].postRecv(recv);
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
        context.close();
        arena.close();
    }
}
