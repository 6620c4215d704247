package io.srdnic.dataplane.attach;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.EmbeddedObjects;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.attach.SendRecord;
import io.srdnic.verbs.attach.ShmRing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The dataplane's side of an attached client's QP: the embedded QP, and the send and receive rings
 * in the client's shared file whose records it turns into posts, straight to the transport's QP
 * (the lcore is the transport's thread). Each record's fields are read once into a reused work
 * request, whose every handle is then checked by the embedded verbs checks against this client's
 * own objects: an lkey of another client's region is not of this
 * QP's PD (LOCAL_PROTECTION_ERROR), and an SGE names bytes by offset in this client's pool only.
 * A record the QP has no room for stays in the ring: the client sees ENOMEM when the ring is full.
 */
final class ServedQp implements ReceiveRing.Target {
    final QueuePair qp;
    final ShmRing sq;
    final ShmRing rq;
    private final ClientSession client;
    private final ServedCq sendCq;
    private final ServedCq recvCq;
    private final SendWr wr = new SendWr(SendRecord.MAX_SGE);
    private final RecvWr rwr = new RecvWr();
    /**
     * Holds {@link #inlineBytes}: freed by {@link #close} when the QP is destroyed or its client
     * reclaimed, not when a GC finds it unreachable (an automatic arena's native memory outlived
     * the client by as long as the heap stayed quiet). Shared: the dataplane's thread closes it, and
     * a bench may run the pass on another thread than the one that opened the client.
     */
    private final Arena inlineArena = Arena.ofShared();
    /** Where an INLINE record's bytes are read to before the post copies them (the dataplane's own memory). */
    private final MemorySegment inlineBytes = inlineArena.allocate(SendRecord.MAX_INLINE);
    /** Records waiting in the send and receive rings when the dataplane last looked (ring occupancy). */
    int sendFill;
    int recvFill;
    /** The sends this pass takes, found by {@link #snapshotSends}. */
    private int sendsReady;

    ServedQp(ClientSession client, QueuePair qp, ShmRing sq, ShmRing rq, ServedCq sendCq, ServedCq recvCq) {
        this.client = client;
        this.qp = qp;
        this.sq = sq;
        this.rq = rq;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
    }

    /** Frees the QP's own native memory; after its embedded QP is destroyed (nothing posts from it then). */
    void close() {
        if (inlineArena.scope().isAlive()) {
            inlineArena.close();
        }
    }

    /** The inline staging buffer (tests: whether it is freed at destroy and reclaim). */
    MemorySegment inlineBytes() {
        return inlineBytes;
    }

    boolean completesInto(ServedCq cq) {
        return sendCq == cq || recvCq == cq;
    }

    /**
     * Reads the send ring's producer index, once this pass: the sends this pass will take (at
     * most {@link ClientSession#BURST} and {@code budget}), or {@link ShmRing#CORRUPT}. Done for
     * every client before any receive ring is read, so that a receive the application published
     * before one of these sends is seen, and posted, before the send is.
     */
    int snapshotSends(int budget) {
        int n = sq.available();
        sendFill = Math.max(n, 0);
        sendsReady = Math.min(Math.min(sendFill, ClientSession.BURST), Math.max(budget, 0));
        return n;
    }

    int sendsReady() {
        return sendsReady;
    }

    /** This pass takes none of the sends found (they stay in the ring for the next). */
    void holdSends() {
        sendsReady = 0;
    }

    /** Posts the receives the client put in its ring, at most {@code budget}; returns the records taken, or {@link ShmRing#CORRUPT}. */
    int pumpReceives(int budget) {
        int n = rq.available();
        recvFill = Math.max(n, 0);
        return n <= 0 ? n : ReceiveRing.take(rq, Math.min(n, budget), client.pool(), rwr, this);
    }

    /** Posts the sends {@link #snapshotSends} found; returns the records taken. */
    int pumpSends() {
        int n = sendsReady;
        sendsReady = 0;
        if (n <= 0) {
            return 0;
        }
        MemorySegment s = sq.segment();
        MemorySegment pool = client.pool();
        int taken = 0;
        for (; taken < n; taken++) {
            long at = sq.peek(taken);
            long wrId = s.get(ValueLayout.JAVA_LONG, at + SendRecord.WR_ID);
            int numSge = s.get(ValueLayout.JAVA_INT, at + SendRecord.NUM_SGE);
            if (numSge < 0 || numSge > SendRecord.MAX_SGE) {
                refuse(sendCq, wrId, WcStatus.LOCAL_QP_OPERATION_ERROR, WcOpcode.SEND);
                continue;
            }
            int opcode = s.get(ValueLayout.JAVA_INT, at + SendRecord.OPCODE);
            int flags = s.get(ValueLayout.JAVA_INT, at + SendRecord.FLAGS);
            wr.wrId(wrId).opcode(opcode)
                .flags(flags)
                .immediate(s.get(ValueLayout.JAVA_INT, at + SendRecord.IMMEDIATE))
                .destination(client.addressHandle(s.get(ValueLayout.JAVA_INT, at + SendRecord.AH)),
                    s.get(ValueLayout.JAVA_INT, at + SendRecord.DEST_QPN), s.get(ValueLayout.JAVA_INT, at + SendRecord.DEST_QKEY))
                .atomic(s.get(ValueLayout.JAVA_LONG, at + SendRecord.REMOTE_ADDRESS), s.get(ValueLayout.JAVA_INT, at + SendRecord.RKEY),
                    s.get(ValueLayout.JAVA_LONG, at + SendRecord.COMPARE_ADD), s.get(ValueLayout.JAVA_LONG, at + SendRecord.SWAP))
                .remoteSrqn(s.get(ValueLayout.JAVA_INT, at + SendRecord.REMOTE_SRQN))
                .numSge(numSge);
            if ((flags & SendWr.INLINE) != 0) {
                // The bytes are in the record: read once into memory of the dataplane's own, which the
                // post copies from before it returns (the client may scribble on the record meanwhile).
                int length = s.get(ValueLayout.JAVA_INT, at + SendRecord.INLINE_LENGTH);
                if (length < 0 || length > SendRecord.MAX_INLINE) {
                    refuse(sendCq, wrId, length < 0 ? WcStatus.LOCAL_PROTECTION_ERROR : WcStatus.LOCAL_LENGTH_ERROR,
                        SendOpcode.completionOpcode(opcode));
                    continue;
                }
                MemorySegment.copy(s, at + SendRecord.SGES, inlineBytes, 0, length);
                wr.numSge(1).sge(0).set(inlineBytes, 0, length, 0);
            } else {
                long total = 0; // each length is read once, and summed where it cannot overflow
                for (int i = 0; i < numSge; i++) {
                    long sge = at + SendRecord.SGES + (long) i * SendRecord.SGE_BYTES;
                    int length = s.get(ValueLayout.JAVA_INT, sge + SendRecord.SGE_LENGTH);
                    total += length;
                    wr.sge(i).set(pool, s.get(ValueLayout.JAVA_LONG, sge + SendRecord.SGE_OFFSET), length,
                        s.get(ValueLayout.JAVA_INT, sge + SendRecord.SGE_LKEY));
                }
                if (total > Integer.MAX_VALUE) {
                    refuse(sendCq, wrId, WcStatus.LOCAL_LENGTH_ERROR, SendOpcode.completionOpcode(opcode));
                    continue;
                }
            }
            int rc;
            try {
                rc = EmbeddedObjects.postSend(qp, wr); // the verbs checks, then straight to the transport: this is its thread
            } catch (VerbsException e) {
                // The client posted before it could know its QP had gone to ERROR (an RC error
                // completion is on its way to it): flushed, as a QP in ERROR completes what is posted
                // to it. Else misuse the client's own checks let through (a race with modify, say).
                int status = qp.state() == QpState.ERROR ? WcStatus.WR_FLUSH_ERROR : WcStatus.LOCAL_QP_OPERATION_ERROR;
                refuse(sendCq, wrId, status, SendOpcode.completionOpcode(opcode));
                continue;
            }
            if (rc == QueuePair.ENOMEM) {
                break;
            }
        }
        sq.release(taken);
        return taken;
    }

    /** A receive straight to the transport's QP, after the SGE check the verbs call makes (not the rest of its checks again). */
    @Override
    public int post(RecvWr wr) {
        return EmbeddedObjects.postReceive(qp, wr);
    }

    @Override
    public void refuse(long wrId) {
        refuse(recvCq, wrId, WcStatus.LOCAL_PROTECTION_ERROR, WcOpcode.RECV);
    }

    private void refuse(ServedCq cq, long wrId, int status, int opcode) {
        client.refused();
        if (cq != null) {
            cq.complete(wrId, status, opcode, 0, qp.qpNum());
        }
    }
}
