package io.srdnic.dataplane.attach;

import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.EmbeddedObjects;
import io.srdnic.verbs.attach.CompletionRecord;
import io.srdnic.verbs.attach.ShmRing;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The dataplane's side of an attached client's CQ: the embedded CQ, whose transport CQ the
 * transport completes into, and the completion ring in the client's shared file that its
 * completions are written to straight from the transport's CQ, as many as the ring has room for
 * (the rest wait in the transport's CQ: the ring never overruns).
 */
final class ServedCq implements io.srdnic.srd.api.CompletionQueue.CompletionSink { // fully qualified: the facade has one too
    private static final int BURST = 32;

    final int handle;
    final CompletionQueue cq;
    final ShmRing ring;
    /** What the transport completes into: polled here without a WorkCompletion in between. */
    private final io.srdnic.srd.api.CompletionQueue completions; // fully qualified: the facade has one too
    /** Completions in the ring the client has not polled yet, after the dataplane's last copy (ring occupancy). */
    int fill;
    /**
     * Records the dataplane may still write this pass: the room it found when it read the
     * client's consumer index, once, at the start of the pass ({@link #beginPass}), counted down
     * as it writes. The client may change its index meanwhile; it is not read again until the next
     * pass, so two reads cannot disagree (the room only grows as the client consumes).
     */
    private int room;

    ServedCq(int handle, CompletionQueue cq, ShmRing ring) {
        this.handle = handle;
        this.cq = cq;
        this.ring = ring;
        this.completions = EmbeddedObjects.cq(cq);
    }

    /** Reads the client's consumer index, once this pass; returns the room, or {@link ShmRing#CORRUPT} when the index is impossible. */
    int beginPass() {
        int free = ring.free();
        room = Math.max(free, 0);
        return free;
    }

    /** Moves completions into the ring, as many as the room found this pass; returns how many. */
    int pump() {
        if (room == 0) {
            fill = ring.capacity();
            return 0;
        }
        int n = completions.poll(this, Math.min(room, BURST)); // the server's pass runs the cycles; each lands in onCompletion
        fill = ring.capacity() - room;
        return n;
    }

    /**
     * A completion made by the dataplane itself (a work request it refused before the transport saw
     * it); false when the ring has no room this pass, and then it is dropped (counted by the caller).
     */
    boolean complete(long wrId, int status, int opcode, int length, int qpn) {
        if (room == 0) {
            return false;
        }
        write(wrId, status, opcode, length, false, 0, qpn, 0, 0);
        return true;
    }

    /** One completion the transport made, polled by {@link #pump}: into the ring. */
    @Override
    public void onCompletion(long wrId, int status, int opcode, int byteLength, boolean hasImmediate, int immediate, int qpn,
                             int sourceQpn, int sourceIp) {
        write(wrId, status, opcode, byteLength, hasImmediate, immediate, qpn, sourceQpn, sourceIp);
    }

    private void write(long wrId, int status, int opcode, int length, boolean hasImm, int imm, int qpn, int sourceQpn, int sourceIp) {
        MemorySegment s = ring.segment();
        long at = ring.next();
        room--;
        s.set(ValueLayout.JAVA_LONG, at + CompletionRecord.WR_ID, wrId);
        s.set(ValueLayout.JAVA_INT, at + CompletionRecord.STATUS, status);
        s.set(ValueLayout.JAVA_INT, at + CompletionRecord.OPCODE, opcode);
        s.set(ValueLayout.JAVA_INT, at + CompletionRecord.BYTE_LENGTH, length);
        s.set(ValueLayout.JAVA_INT, at + CompletionRecord.HAS_IMMEDIATE, hasImm ? 1 : 0);
        s.set(ValueLayout.JAVA_INT, at + CompletionRecord.IMMEDIATE, imm);
        s.set(ValueLayout.JAVA_INT, at + CompletionRecord.QPN, qpn);
        s.set(ValueLayout.JAVA_INT, at + CompletionRecord.SOURCE_QPN, sourceQpn);
        s.set(ValueLayout.JAVA_INT, at + CompletionRecord.SOURCE_IP, sourceIp);
        ring.publish();
    }
}
