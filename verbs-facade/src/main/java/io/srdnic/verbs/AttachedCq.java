package io.srdnic.verbs;

import io.srdnic.verbs.attach.CompletionRecord;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.DestroyRequest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** An attached completion queue: the ring in the shared file the dataplane writes completions into. */
final class AttachedCq implements VerbsProvider.Cq {
    /** The dataplane's number for this CQ. */
    final int handle;
    private final AttachedSession session;
    private final ShmRing shared;

    AttachedCq(AttachedSession session, int handle, ShmRing shared) {
        this.session = session;
        this.handle = handle;
        this.shared = shared;
    }

    /** Completions from the ring the dataplane fills; no syscall, nothing allocated. */
    @Override
    public int poll(WorkCompletion[] out, int max) {
        int n = shared.available();
        if (n == ShmRing.CORRUPT) {
            throw new VerbsException("this CQ's ring in shared memory was overwritten: the context is broken");
        }
        if (n == 0) {
            session.checkAlive();
            return 0;
        }
        n = Math.min(n, Math.min(max, out.length));
        MemorySegment s = shared.segment();
        for (int i = 0; i < n; i++) {
            long at = shared.peek(i);
            WorkCompletion wc = out[i];
            wc.wrId = s.get(ValueLayout.JAVA_LONG, at + CompletionRecord.WR_ID);
            wc.status = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.STATUS);
            wc.opcode = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.OPCODE);
            wc.byteLength = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.BYTE_LENGTH);
            wc.hasImmediate = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.HAS_IMMEDIATE) != 0;
            wc.immediate = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.IMMEDIATE);
            wc.qpNum = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.QPN);
            wc.sourceQpn = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.SOURCE_QPN);
            wc.sourceIp = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.SOURCE_IP);
        }
        shared.release(n);
        return n;
    }

    @Override
    public int pollCompleted(WorkCompletion[] out, int max) {
        throw new VerbsException("pollCompleted is for the loop that runs an embedded context; an attached CQ is polled with poll");
    }

    @Override
    public void destroy() {
        session.request(new DestroyRequest(DestroyRequest.CQ, handle)); // refused while a QP completes into it
    }

    @Override
    public long overruns() {
        return 0; // the dataplane holds completions back rather than lose them
    }
}
