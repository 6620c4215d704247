package io.srdnic.cli.perf;

import io.srdnic.cli.adversary.StreamLedger;
import io.srdnic.cli.adversary.StreamPayload;
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
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;

/**
 * One side of the adversary's verified stream: an SRD QP that sends numbered, checksummed messages
 * ({@link StreamPayload}) to the peer's QP, up to {@code window} in flight, each in a send buffer of
 * its own until it completes, and checks every message it receives from the peer (content, and
 * that it came only once) before reposting the receive. What happened goes in a {@link StreamLedger}.
 * The work request id of a send carries its sequence number and its buffer's slot. Closing it closes
 * the context.
 */
final class VerifiedStream implements AutoCloseable {
    private static final int SLOT_BITS = 16;
    final Context context;
    final QueuePair qp;
    final int qkey;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final WorkCompletion[] wcs = CompletionQueue.array(64);
    private final MemoryRegion sendMr;
    private final MemoryRegion recvMr;
    private final MemorySegment sendBuffers;
    private final MemorySegment recvBuffers;
    private final RecvWr recv = new RecvWr();
    private final int size;
    private final int slot;
    private final int window;
    private final int[] freeSlots;
    private int freeCount;
    private final int ownStream;
    private int peerStream;
    private SendWr send;
    private final StreamPayload payload = new StreamPayload();
    private final long[] sequence = new long[1];
    final StreamLedger ledger = new StreamLedger();
    private long nextSequence;

    VerifiedStream(Context context, int size, int window, int recvDepth, int qkey, int ownStream) {
        this.context = context;
        this.size = size;
        this.window = window;
        this.qkey = qkey;
        this.ownStream = ownStream;
        this.slot = Math.max(64, (size + 63) & ~63);
        if (size > context.mtu()) {
            context.close();
            throw new IllegalArgumentException("--size " + size + " is over this link's SRD MTU " + context.mtu());
        }
        try {
            this.pd = context.allocPd();
            this.cq = context.createCq(window + recvDepth + 64);
            this.sendMr = pd.allocateRegion((long) window * slot, Access.LOCAL_WRITE);
            this.recvMr = pd.allocateRegion((long) recvDepth * slot, Access.LOCAL_WRITE);
            this.sendBuffers = sendMr.segment();
            this.recvBuffers = recvMr.segment();
            this.qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(window).maxRecvWr(recvDepth).build());
            qp.modify(QpState.INIT, qkey);
            for (int s = 0; s < recvDepth; s++) {
                post(s);
            }
            qp.modify(QpState.RTR, 0);
            qp.modify(QpState.RTS, 0);
            qp.rnrRetry(7); // a receiver slow to repost backs the sender off instead of failing its sends
            this.freeSlots = new int[window];
            for (int s = window - 1; s >= 0; s--) {
                freeSlots[freeCount++] = s;
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    PeerInfo info() {
        return new PeerInfo(context.mac(), context.ip(), context.udpPort(), qkey, new int[] {qp.qpNum()});
    }

    /** Addresses the peer's QP; {@code peerStream} is the stream id its messages carry. */
    void connect(PeerInfo peer, int peerStream) {
        this.peerStream = peerStream;
        AddressHandle ah = pd.createAddressHandle(peer.mac(), peer.ip(), peer.udpPort());
        send = new SendWr().opcode(SendWr.OP_SEND_WITH_IMM).flags(SendWr.SIGNALED).destination(ah, peer.qpns()[0], peer.qkey());
        send.numSge(1);
    }

    /** Posts what the window allows (when {@code post}), then handles completions; returns the work done. */
    int doWork(boolean post) {
        int work = 0;
        while (post && freeCount > 0) {
            int s = freeSlots[freeCount - 1];
            long seq = nextSequence;
            long at = (long) s * slot;
            payload.write(sendBuffers, at, size, ownStream, seq);
            send.sge(0).set(sendMr, at, size);
            if (qp.postSend(send.wrId((seq << SLOT_BITS) | s).immediate((int) seq)) != 0) {
                break; // the send queue is full: completions first
            }
            freeCount--;
            ledger.posted(seq);
            nextSequence++;
            work++;
        }
        int n = cq.poll(wcs);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if (wc.opcode() == WcOpcode.SEND) {
                long id = wc.wrId();
                ledger.completed(id >>> SLOT_BITS, wc.status());
                freeSlots[freeCount++] = (int) (id & ((1 << SLOT_BITS) - 1));
            } else if (!wc.ok()) {
                ledger.receiveError(wc.status());
            } else {
                int s = (int) wc.wrId();
                StreamPayload.Defect defect = payload.check(recvBuffers, (long) s * slot, wc.byteLength(), size, peerStream,
                    wc.immediate(), sequence);
                if (defect == null) {
                    ledger.received(sequence[0]);
                } else {
                    ledger.corrupted(defect);
                }
                // a later short message cannot pass for this one
                recvBuffers.asSlice((long) s * slot, StreamPayload.MIN_SIZE).fill((byte) 0);
                post(s);
            }
        }
        return work + n;
    }

    /** Sends posted and not completed yet. */
    int inFlight() {
        return window - freeCount;
    }

    private void post(int s) {
        recv.wrId(s).sge().set(recvMr, (long) s * slot, slot);
        int rc = qp.postRecv(recv);
        if (rc != 0) {
            throw new IllegalStateException("receive queue refused a repost (" + rc + ")");
        }
    }

    @Override
    public void close() {
        context.close(); // and the regions' memory with it
    }
}
