package io.srdnic.netty;

import io.netty.buffer.ByteBuf;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.cm.CmId;
import java.nio.ByteBuffer;

/**
 * The verbs side of one byte stream: an RC queue pair (made through its CM id), one completion
 * queue, and one registered region ({@link StreamBuffers}: receive buffers all posted from the
 * start, then send slots) taken from the loop's {@link StreamBufferPool} when the stream is made
 * and reused for its life: an arena of its own embedded, the shared pool attached.
 * <p>
 * Credits: each message the peer sends takes one of our posted receives, so the peer may send only
 * while it knows of a receive of ours that is free. The hello of each side tells the other how many
 * receives it posted; afterwards every message carries, in its immediate data, how many receives
 * its sender has posted again since its previous message (the grant), and a FIN bit for a
 * half-close. A data message needs two credits: the last one is kept for a message that only
 * grants (no data), which is sent when the peer is down to half its credits and we have some to
 * give — so a side that consumes what it receives always lets its peer go on, nothing is ever sent
 * to a queue without a receive (no RNR), and a side whose application stops reading stops its peer
 * (its receives stay taken, no grants go out).
 */
final class RcStream {
    /** Receives posted per stream and their size: up to 1 MiB on its way to a reader. */
    static final int RECEIVES = 64;
    static final int RECEIVE_SIZE = 16 * 1024;
    /** Send slots: data messages in flight at once. */
    static final int SEND_SLOTS = 32;
    static final int FIN = 1 << 31;
    static final int GRANT_MASK = 0xFFFF;
    /** Send work requests' ids carry this bit; a slot number below it (credit-only messages: no slot). */
    private static final long SEND_TAG = 1L << 40;
    private static final int NO_SLOT = 0xFFFF;
    private static final int SEND_DEPTH = SEND_SLOTS + 8;
    private static final long LINGER_NANOS = 2_000_000_000L;

    final CmId id;
    private final Context context;
    private final StreamBufferPool pool;
    private final StreamBuffers buffers;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final ByteBuffer[] receiveViews;
    private final ByteBuffer[] sendViews;
    private final RecvWr recvWr = new RecvWr();
    private final SendWr sendWr = new SendWr(1);
    private final WorkCompletion[] wcs = CompletionQueue.array(32);
    private final int[] freeSlots = new int[SEND_SLOTS];
    private int freeSlotCount;
    private final int[] readySlot = new int[RECEIVES];
    private final int[] readyLength = new int[RECEIVES];
    private int readyHead;
    private int readyCount;
    private int outstanding;
    /** Receives of the peer's that we may still send into, as far as its grants tell. */
    private int credits;
    /** Receives posted again that the peer has not been told of. */
    private int grantsOwed;
    /** Receives of ours the peer still believes free: what we announced less what it sent. */
    private int peerCredits = RECEIVES;
    private int maxMessage = RECEIVE_SIZE;
    private boolean finReceived;
    private boolean finSent;
    /** A receive came back flushed: the QP went down under a disconnect, nothing more arrives. */
    private boolean flushed;
    private String failure;
    private long lingerDeadline;
    private boolean released;

    /** Makes the stream's QP on {@code id} (left in INIT by the CM) and posts every receive before the connection is up. */
    RcStream(CmId id, Context context, ProtectionDomain pd, StreamBufferPool pool) {
        this.id = id;
        this.context = context;
        this.pool = pool;
        this.buffers = pool.take(); // first: a pool with no room fails the stream before anything else is made
        this.receiveViews = buffers.receiveViews;
        this.sendViews = buffers.sendViews;
        CompletionQueue madeCq = null;
        QueuePair madeQp = null;
        try {
            madeCq = context.createCq(RECEIVES + SEND_DEPTH + 8);
            madeQp = id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(madeCq).maxSendWr(SEND_DEPTH).maxRecvWr(RECEIVES).build());
        } catch (RuntimeException e) {
            if (madeCq != null) {
                madeCq.destroy();
            }
            pool.give(buffers);
            throw e;
        }
        this.cq = madeCq;
        this.qp = madeQp;
        for (int i = 0; i < RECEIVES; i++) {
            postReceive(i);
        }
        for (int i = 0; i < SEND_SLOTS; i++) {
            freeSlots[freeSlotCount++] = i;
        }
        grantsOwed = 0; // the hello announces these first receives; grants are for receives posted again
    }

    /** The connection is up: the peer posted {@code peerReceives} receives of {@code peerReceiveSize} bytes. */
    void start(int peerReceives, int peerReceiveSize) {
        credits = peerReceives;
        maxMessage = Math.min(RECEIVE_SIZE, peerReceiveSize);
    }

    /** Takes the completions made so far (the loop ran the duty cycle); returns how many. */
    int poll() {
        int total = 0;
        int n;
        while ((n = context.isAttached() ? cq.poll(wcs) : cq.pollCompleted(wcs, wcs.length)) > 0) {
            for (int i = 0; i < n; i++) {
                complete(wcs[i]);
            }
            total += n;
        }
        return total;
    }

    private void complete(WorkCompletion wc) {
        long wrId = wc.wrId();
        if (wrId >= SEND_TAG) {
            outstanding--;
            int slot = (int) (wrId - SEND_TAG);
            if (slot != NO_SLOT) {
                freeSlots[freeSlotCount++] = slot;
            }
            if (!wc.ok() && failure == null) {
                failure = "a send to the peer failed (" + wc.statusName() + "): the peer is gone or unreachable";
            }
            return;
        }
        int slot = (int) wrId;
        if (wc.status() == WcStatus.WR_FLUSH_ERROR) {
            // the QP was taken down (a disconnect): attached, its flushed receives may come before the CM's DISCONNECTED
            flushed = true;
            return;
        }
        if (!wc.ok()) {
            if (failure == null) {
                failure = "the connection broke (" + wc.statusName() + ")";
            }
            return;
        }
        int imm = wc.hasImmediate() ? wc.immediate() : 0;
        credits += imm & GRANT_MASK;
        peerCredits--;
        if ((imm & FIN) != 0) {
            finReceived = true;
        }
        if (wc.byteLength() > 0) {
            int tail = (readyHead + readyCount) % RECEIVES;
            readySlot[tail] = slot;
            readyLength[tail] = wc.byteLength();
            readyCount++;
        } else {
            postReceive(slot);
        }
    }

    private void postReceive(int slot) {
        recvWr.wrId(slot);
        recvWr.sge().set(buffers.region, StreamBuffers.receiveOffset(slot), RECEIVE_SIZE);
        int rc = qp.postRecv(recvWr);
        if (rc != 0) {
            throw new IllegalStateException("receive queue full (" + rc + ") with " + RECEIVES + " receives: a receive was posted twice");
        }
        grantsOwed++;
    }

    /** Bytes received and not yet handed up, in the next message. 0: none. */
    int readyBytes() {
        return readyCount == 0 ? 0 : readyLength[readyHead];
    }

    /** Copies the next received message into {@code dst} (which has room for {@link #readyBytes}) and posts its receive again. */
    void takeReady(ByteBuf dst) {
        int slot = readySlot[readyHead];
        ByteBuffer view = receiveViews[slot];
        view.clear().limit(readyLength[readyHead]);
        dst.writeBytes(view);
        readyHead = (readyHead + 1) % RECEIVES;
        readyCount--;
        postReceive(slot);
    }

    boolean finReceived() {
        return finReceived && readyCount == 0;
    }

    /** Whether the QP's receives were flushed: the connection was taken down (a disconnect), its end not yet told by the CM perhaps. */
    boolean flushed() {
        return flushed;
    }

    /** Why the connection is broken, or null. */
    String failure() {
        return failure;
    }

    /** Whether a data message may go now: a credit beyond the one kept for grants, a free slot, room in the send queue. */
    boolean canSend() {
        return credits >= 2 && freeSlotCount > 0 && outstanding < SEND_DEPTH && !finSent && failure == null;
    }

    int maxMessage() {
        return maxMessage;
    }

    /** A free send slot's buffer, cleared, limited to the largest message the peer takes; {@link #send} posts it. */
    ByteBuffer slotBuffer() {
        ByteBuffer b = sendViews[freeSlots[freeSlotCount - 1]];
        b.clear().limit(maxMessage);
        return b;
    }

    /** Posts the slot {@link #slotBuffer} returned with its first {@code length} bytes. */
    void send(int length) {
        int slot = freeSlots[--freeSlotCount];
        post(slot, length, 0);
    }

    /** The half-close: a message with the FIN bit after everything written before it. False while no credit is free. */
    boolean sendFin() {
        if (finSent) {
            return true;
        }
        if (credits < 1 || outstanding >= SEND_DEPTH || failure != null) {
            return false;
        }
        post(NO_SLOT, 0, FIN);
        finSent = true;
        return true;
    }

    boolean finSent() {
        return finSent;
    }

    /** Sends a message that only grants, when the peer is down to half its credits and there are receives to tell of. */
    void grantIfLow() {
        if (grantsOwed > 0 && peerCredits <= RECEIVES / 2 && credits >= 1 && outstanding < SEND_DEPTH && failure == null) {
            post(NO_SLOT, 0, 0);
        }
    }

    private void post(int slot, int length, int flags) {
        int grant = Math.min(grantsOwed, GRANT_MASK);
        sendWr.wrId(SEND_TAG + slot).opcode(SendWr.OP_SEND_WITH_IMM).flags(SendWr.SIGNALED).immediate(flags | grant);
        if (length > 0) {
            sendWr.numSge(1);
            sendWr.sge(0).set(buffers.region, StreamBuffers.sendOffset(slot), length);
        } else {
            sendWr.numSge(0);
        }
        int rc = qp.postSend(sendWr);
        if (rc != 0) {
            throw new IllegalStateException(
                "send queue full (" + rc + ") with " + outstanding + " of " + SEND_DEPTH + " sends outstanding");
        }
        outstanding++;
        credits--;
        grantsOwed -= grant;
        peerCredits += grant;
    }

    /** The channel closed: sends already posted get up to 2 s to finish, then the stream goes. */
    void linger() {
        lingerDeadline = System.nanoTime() + LINGER_NANOS;
    }

    /** A pass for a closed channel's stream: completions, and the release once nothing is outstanding. */
    int pollLingering() {
        int n = poll();
        readyCount = 0;
        if (outstanding == 0 || failure != null || System.nanoTime() - lingerDeadline > 0) {
            release();
        }
        return n;
    }

    boolean released() {
        return released;
    }

    /** Destroys the id (a DREQ to the peer if still connected), the QP and the CQ, and gives the buffers back to the loop's pool. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        try {
            id.destroy();
        } finally {
            try {
                qp.destroy();
                cq.destroy();
            } finally {
                pool.give(buffers);
            }
        }
    }
}
