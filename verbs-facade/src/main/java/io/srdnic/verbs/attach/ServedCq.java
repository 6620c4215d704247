package io.srdnic.verbs.attach;

import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The dataplane's side of an attached client's CQ: the embedded CQ the transport completes into,
 * and the completion ring in the client's shared file that its completions are copied to, as many
 * as the ring has room for (the rest wait in the embedded CQ: the ring never overruns).
 */
final class ServedCq {
    private static final int BURST = 32;

    final int handle;
    final CompletionQueue cq;
    final ShmRing ring;
    private final WorkCompletion[] wcs = CompletionQueue.array(BURST);
    /** Completions in the ring the client has not polled yet, after the dataplane's last copy (ring occupancy). */
    int fill;

    ServedCq(int handle, CompletionQueue cq, ShmRing ring) {
        this.handle = handle;
        this.cq = cq;
        this.ring = ring;
    }

    /** Moves completions into the ring; returns how many, or {@link ShmRing#CORRUPT} when the client broke its index. */
    int pump() {
        int free = ring.free();
        if (free <= 0) {
            fill = free == 0 ? ring.capacity() : 0;
            return free == ShmRing.CORRUPT ? ShmRing.CORRUPT : 0;
        }
        int n = cq.pollCompleted(wcs, Math.min(free, BURST)); // the server's pass runs the cycles
        fill = ring.capacity() - free + n;
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            write(wc.wrId(), wc.status(), wc.opcode(), wc.byteLength(), wc.hasImmediate(), wc.immediate(), wc.qpNum(), wc.sourceQpn(),
                wc.sourceIp());
        }
        return n;
    }

    /**
     * A completion made by the dataplane itself (a work request it refused before the transport saw
     * it); false when the ring is full or broken, and then it is dropped (counted by the caller).
     */
    boolean complete(long wrId, int status, int opcode, int length, int qpn) {
        if (ring.free() <= 0) {
            return false;
        }
        write(wrId, status, opcode, length, false, 0, qpn, 0, 0);
        return true;
    }

    private void write(long wrId, int status, int opcode, int length, boolean hasImm, int imm, int qpn, int sourceQpn, int sourceIp) {
        MemorySegment s = ring.segment();
        long at = ring.claim();
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
