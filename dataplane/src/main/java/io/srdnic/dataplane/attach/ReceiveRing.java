package io.srdnic.dataplane.attach;

import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.attach.RecvRecord;
import io.srdnic.verbs.attach.ShmRing;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Turns the records of a client's receive ring (a QP's or an SRQ's) into posts, as many as the
 * queue has room for: a record it has no room for stays in the ring. Each record is read once into
 * the reused work request, whose SGE the embedded checks then hold to this client's regions.
 */
final class ReceiveRing {
    /** Where the receives go: a QP or an SRQ of the client. */
    interface Target {
        /** 0, or QueuePair.ENOMEM when full; throws VerbsException for a receive refused. */
        int post(RecvWr wr);

        /** The receive {@code wrId} was refused before the transport saw it. */
        void refuse(long wrId);
    }

    private ReceiveRing() {
    }

    /** Takes up to {@code n} ready records of {@code ring} (SGEs in {@code pool}) into {@code target}; returns how many were taken. */
    static int take(ShmRing ring, int n, MemorySegment pool, RecvWr wr, Target target) {
        MemorySegment s = ring.segment();
        int taken = 0;
        for (; taken < n; taken++) {
            long at = ring.peek(taken);
            long wrId = s.get(ValueLayout.JAVA_LONG, at + RecvRecord.WR_ID);
            wr.wrId(wrId).sge().set(pool, s.get(ValueLayout.JAVA_LONG, at + RecvRecord.OFFSET),
                s.get(ValueLayout.JAVA_INT, at + RecvRecord.LENGTH), s.get(ValueLayout.JAVA_INT, at + RecvRecord.LKEY));
            int rc;
            try {
                rc = target.post(wr);
            } catch (VerbsException e) { // an SGE outside this client's regions, or the queue in a state that takes none
                target.refuse(wrId);
                continue;
            }
            if (rc == QueuePair.ENOMEM) {
                break;
            }
        }
        ring.release(taken);
        return taken;
    }
}
