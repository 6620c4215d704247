package io.srdnic.verbs;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.verbs.attach.RecvRecord;
import io.srdnic.verbs.attach.SendRecord;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.DestroyRequest;
import io.srdnic.verbs.attach.control.ModifyQpRequest;
import io.srdnic.verbs.attach.control.QpAttributesReply;
import io.srdnic.verbs.attach.control.QueryQpRequest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An attached QP's posting side: work requests become records in the QP's send and receive rings
 * in the shared file, published with a release store; the dataplane polls the rings in its duty
 * cycle. No syscall and no allocation per work request. An SGE is written as an offset in the
 * pool; one outside the pool is written as -1, which the dataplane completes with
 * LOCAL_PROTECTION_ERROR, as it would a wrong lkey. An INLINE send's bytes go into the record.
 */
final class AttachedQp implements VerbsProvider.Qp {
    final int qpn;
    private final AttachedSession session;
    /** The facade's QP; null for an SRQ's receive ring, which posts as a QP's does. */
    private final QueuePair owner;
    private final ShmRing sq;
    private final ShmRing rq;

    AttachedQp(AttachedSession session, QueuePair owner, int qpn, ShmRing sq, ShmRing rq) {
        this.session = session;
        this.owner = owner;
        this.qpn = qpn;
        this.sq = sq;
        this.rq = rq;
    }

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public void modify(QpState next, int qkey) {
        apply(ModifyQpRequest.simple(qpn, next, qkey));
    }

    @Override
    public void modify(QpAttributes complete) {
        apply(ModifyQpRequest.of(qpn, complete));
    }

    private void apply(ModifyQpRequest request) {
        owner.state = ModifyQpRequest.state(session.request(request).state());
    }

    /** Asks the dataplane; the QP's state becomes what it answered (an RC QP may have gone to ERROR there since the last modify). */
    @Override
    public QpAttributes query() {
        QpAttributes a = session.call(new QueryQpRequest(qpn), QpAttributesReply.class).attributes().toAttributes();
        owner.state = a.state();
        return a;
    }

    @Override
    public void rnrRetry(int retries) {
        throw new VerbsException("RNR retry changes outside modify are not served on an attached context yet (docs/dataplane.md):"
            + " open the device embedded");
    }

    /** What rxe refuses at posting is refused here too, not as a completion; the dataplane runs the other checks on its side. */
    @Override
    public int postSend(SendWr wr, int ah) {
        if (SendOpcode.isAtomic(wr.opcode)) {
            QueuePair.checkAtomic(wr);
        }
        if ((wr.flags & SendWr.INLINE) != 0) {
            owner.checkInline(wr, wr.lengthsOverflow() ? Integer.MAX_VALUE : wr.totalLength());
        }
        return write(wr, ah);
    }

    /** The sends in flight are the dataplane's to count. */
    @Override
    public int sendsOutstanding() {
        return 0;
    }

    /** First: a refused or timed-out destroy leaves the QP usable, and destroyable again. */
    @Override
    public void destroy() {
        session.request(new DestroyRequest(DestroyRequest.QP, qpn));
    }

    /** 0, or ENOMEM when the send ring is full. */
    private int write(SendWr wr, int ah) {
        long at = claim(sq);
        if (at < 0) {
            return QueuePair.ENOMEM;
        }
        MemorySegment s = sq.segment();
        s.set(ValueLayout.JAVA_LONG, at + SendRecord.WR_ID, wr.wrId);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.OPCODE, wr.opcode);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.FLAGS, owner.sqSigAll ? wr.flags | SendWr.SIGNALED : wr.flags);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.AH, ah);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.DEST_QPN, wr.remoteQpn);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.DEST_QKEY, wr.remoteQkey);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.IMMEDIATE, wr.immediate);
        s.set(ValueLayout.JAVA_LONG, at + SendRecord.REMOTE_ADDRESS, wr.remoteAddress);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.RKEY, wr.rkey);
        s.set(ValueLayout.JAVA_LONG, at + SendRecord.COMPARE_ADD, wr.compareAdd);
        s.set(ValueLayout.JAVA_LONG, at + SendRecord.SWAP, wr.swap);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.REMOTE_SRQN, wr.remoteSrqn);
        if ((wr.flags & SendWr.INLINE) != 0) {
            s.set(ValueLayout.JAVA_INT, at + SendRecord.NUM_SGE, 0);
            s.set(ValueLayout.JAVA_INT, at + SendRecord.INLINE_LENGTH, gatherInline(wr, s, at + SendRecord.SGES));
            sq.publish();
            return 0;
        }
        int n = Math.min(wr.numSge, SendRecord.MAX_SGE);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.NUM_SGE, wr.numSge);
        for (int i = 0; i < n; i++) {
            Sge g = wr.sges[i];
            long e = at + SendRecord.SGES + (long) i * SendRecord.SGE_BYTES;
            s.set(ValueLayout.JAVA_LONG, e + SendRecord.SGE_OFFSET, g.segment == null ? -1
                    : session.poolOffset(g.segment, g.offset, g.length));
            s.set(ValueLayout.JAVA_INT, e + SendRecord.SGE_LENGTH, g.length);
            s.set(ValueLayout.JAVA_INT, e + SendRecord.SGE_LKEY, g.lkey);
        }
        sq.publish();
        return 0;
    }

    /**
     * INLINE: the bytes themselves into the record at {@code to}, now, from wherever the SGEs name
     * (verbs lets the buffer be reused once postSend returns, and inline data needs no region);
     * returns their length, or -1 (refused by the dataplane) for an SGE naming no memory or bytes
     * outside its segment. The QP's max_inline_data, checked before, is at most what a record holds.
     */
    private static int gatherInline(SendWr wr, MemorySegment record, long to) {
        int total = 0;
        for (int i = 0; i < wr.numSge; i++) {
            Sge g = wr.sges[i];
            if (g.segment == null || g.offset < 0 || g.length < 0 || g.offset > g.segment.byteSize() - g.length
                || (long) total + g.length > SendRecord.MAX_INLINE) {
                return -1;
            }
            MemorySegment.copy(g.segment, g.offset, record, to + total, g.length);
            total += g.length;
        }
        return total;
    }

    /** 0, or ENOMEM when the receive ring is full. */
    @Override
    public int postRecv(RecvWr wr) {
        long at = claim(rq);
        if (at < 0) {
            return QueuePair.ENOMEM;
        }
        MemorySegment s = rq.segment();
        Sge g = wr.sge;
        s.set(ValueLayout.JAVA_LONG, at + RecvRecord.WR_ID, wr.wrId);
        s.set(ValueLayout.JAVA_LONG, at + RecvRecord.OFFSET, g.segment == null ? -1 : session.poolOffset(g.segment, g.offset, g.length));
        s.set(ValueLayout.JAVA_INT, at + RecvRecord.LENGTH, g.length);
        s.set(ValueLayout.JAVA_INT, at + RecvRecord.LKEY, g.lkey);
        rq.publish();
        return 0;
    }

    private long claim(ShmRing ring) {
        session.checkAlive();
        long at = ring.claim();
        if (at == ShmRing.CORRUPT) {
            throw new VerbsException("QP " + qpn + "'s ring in shared memory was overwritten: the context is broken");
        }
        return at;
    }
}
