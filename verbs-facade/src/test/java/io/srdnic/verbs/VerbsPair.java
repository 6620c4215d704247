package io.srdnic.verbs;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/** Test fixture: two contexts with a QP each, ready to talk (RTS, receives posted). */
final class VerbsPair implements AutoCloseable {
    static final int QKEY = 0x11;

    final Arena arena = Arena.ofShared();
    final Context a;
    final Context b;
    final Side sa;
    final Side sb;

    /** One side: its PD, CQs, QP, a registered buffer and an address handle to the other side. */
    static final class Side {
        ProtectionDomain pd;
        CompletionQueue cq;
        QueuePair qp;
        MemoryRegion mr;
        AddressHandle toPeer;
        final WorkCompletion[] wcs = CompletionQueue.array(64);
    }

    VerbsPair(Context a, Context b, QpType type, int receives, int size) {
        this.a = a;
        this.b = b;
        this.sa = side(a, type, receives, size);
        this.sb = side(b, type, receives, size);
        sa.toPeer = sa.pd.createAddressHandle(b.mac(), b.ip(), b.udpPort());
        sb.toPeer = sb.pd.createAddressHandle(a.mac(), a.ip(), a.udpPort());
        if (type == QpType.RC) {
            connect(sa, sb, 100, 900);
            connect(sb, sa, 900, 100);
        } else {
            for (Side s : new Side[] {sa, sb}) {
                s.qp.modify(QpState.RTR, 0);
                s.qp.modify(QpState.RTS, 0);
            }
        }
    }

    /** RC: RTR then RTS with what verbs requires, {@code s} pointing at {@code peer}'s QP. */
    private static void connect(Side s, Side peer, int rqPsn, int sqPsn) {
        s.qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(s.toPeer.handle()).pathMtu(4096).destQpn(peer.qp.qpNum())
            .rqPsn(rqPsn).maxDestRdAtomic(4).minRnrTimer(1));
        s.qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(sqPsn).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(4));
    }

    private Side side(Context c, QpType type, int receives, int size) {
        Side s = new Side();
        s.pd = c.allocPd();
        s.cq = c.createCq(4096);
        s.qp = s.pd.createQueuePair(QpInitAttributes.builder(type).cq(s.cq)
            .maxSendWr(1024).maxRecvWr(Math.max(1, receives)).maxSendSge(4).maxInlineData(128).build());
        MemorySegment mem = arena.allocate((long) Math.max(1, receives + 16) * Math.max(1, size), 64);
        s.mr = s.pd.registerMemory(mem, Access.LOCAL_WRITE);
        if (type == QpType.RC) {
            s.qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                .accessFlags(QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ | QpAttributes.ACCESS_REMOTE_ATOMIC));
        } else {
            s.qp.modify(QpState.INIT, QKEY);
        }
        RecvWr r = new RecvWr();
        for (int i = 0; i < receives; i++) {
            r.wrId(1000 + i).sge().set(s.mr, (long) (16 + i) * size, size);
            if (s.qp.postRecv(r) != 0) {
                throw new IllegalStateException("could not post receive " + i);
            }
        }
        return s;
    }

    /** Waits (up to about 4 s) for {@code n} completions of {@code cq} into {@code wcs}; returns how many came. */
    static int await(CompletionQueue cq, WorkCompletion[] wcs, int n) {
        int got = 0;
        for (int i = 0; i < 4000 && got < n; i++) {
            WorkCompletion[] some = CompletionQueue.array(n - got);
            int k = cq.await(some, n - got, TimeUnit.MILLISECONDS);
            System.arraycopy(some, 0, wcs, got, k);
            got += k;
        }
        return got;
    }

    @Override
    public void close() {
        a.close();
        b.close();
        arena.close();
    }
}
