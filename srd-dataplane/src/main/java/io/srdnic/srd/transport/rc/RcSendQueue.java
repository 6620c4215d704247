package io.srdnic.srd.transport.rc;

/**
 * An RC (or SRC) QP's send queue, as rxe's send queue of WQEs: a ring of {@link RcSendSlot}s in
 * post order that the requester posts into and sends from and the completer retires from.
 * [head, tail) is posted and not completed; [nextToSend, tail) not all sent. The slots are made
 * once, with the QP, and reused in ring order.
 */
final class RcSendQueue {
    /** Token bits naming the slot of a READ or atomic; the rest carry the slot's generation. */
    static final int TOKEN_SLOT_BITS = 20;

    final int depth;
    private final RcSendSlot[] slots;
    /** The oldest request not completed (the completer's). */
    long head;
    /** Where the next post goes (the requester's). */
    long tail;
    /** The oldest request with packets not yet sent (the requester's). */
    long nextToSend;
    /** READs and atomics sent and not done: at most max_rd_atomic. */
    int readsInFlight;

    RcSendQueue(int depth) {
        this.depth = depth;
        this.slots = new RcSendSlot[depth];
        for (int i = 0; i < depth; i++) {
            slots[i] = new RcSendSlot();
        }
    }

    RcSendSlot get(int s) {
        return slots[s];
    }

    int slot(long sequence) {
        return (int) (sequence % depth);
    }

    boolean isFull() {
        return tail - head >= depth;
    }

    /** The READ/atomic token of slot {@code s}: its index and generation, so a stale answer names nothing. */
    int token(int s) {
        return (slots[s].generation << TOKEN_SLOT_BITS) | s;
    }

    /** The slot a token names (it may be out of range: a forged token). */
    static int slotOfToken(int token) {
        return token & ((1 << TOKEN_SLOT_BITS) - 1);
    }

    /** Whether slot {@code s} holds a request posted and not yet done. */
    boolean isWaiting(int s) {
        long n = tail - head;
        long position = (s - slot(head) + depth) % depth;
        return position < n && !slots[s].done;
    }

    /** The slot of the oldest request not done (what verbs blames a transport failure on), or -1. */
    int oldestNotDone() {
        for (long q = head; q != tail; q++) {
            if (!slots[slot(q)].done) {
                return slot(q);
            }
        }
        return -1;
    }

    /** The request whose packets include {@code psn}, already acknowledged selectively; {@code depth} (an answer of ours) if none. */
    int ownerOfAcknowledged(int psn) {
        for (long q = head; q != tail && slots[slot(q)].nextSegment > 0; q++) { // sent in post order: the unsent come last
            RcSendSlot w = slots[slot(q)];
            if (psn - w.firstPsn >= 0 && (w.nextSegment < w.segments || w.lastPsn - psn >= 0)) {
                return slot(q);
            }
        }
        return depth;
    }
}
