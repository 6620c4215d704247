package io.srdnic.verbs.conformance;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The conformance suite's fixture, as rdma-core's {@code RCResources} pair: two contexts (embedded,
 * or attached: see {@link ConformanceFabric}) on one seeded simulated network (hostile: loss,
 * duplication, reordering), an RC QP each, connected RESET → INIT → RTR → RTS with every remote
 * access allowed, and a registered buffer per side.
 */
final class RcConformancePair implements AutoCloseable {
    static final LinkConfig HOSTILE = LinkConfig.builder().lossProbability(0.05).duplicateProbability(0.05).reorderProbability(0.05)
        .build();

    final Arena arena = Arena.ofShared();
    final ConformanceFabric fabric;
    /** The simulated network, when the fabric lets a test add embedded hosts to it (null attached). */
    final SimWorld world;
    final Side a;
    final Side b;
    private final int rnrRetry;

    /** One end: context, PD, one CQ for sends and receives, the QP, a buffer with LOCAL_WRITE and every remote access. */
    static final class Side {
        Context ctx;
        ProtectionDomain pd;
        CompletionQueue cq;
        QueuePair qp;
        MemorySegment mem;
        MemoryRegion mr;

        /** {@code bytes} of memory any provider can register (attached: its shared pool), kept allocated with the pair. */
        MemorySegment memory(int bytes) {
            return pd.allocateRegion(bytes, Access.LOCAL_WRITE).segment();
        }
    }

    RcConformancePair(long seed, LinkConfig link, int bufferBytes) {
        this(seed, link, bufferBytes, ThreadingMode.INVOKER);
    }

    /** {@code mode}: the threading mode of side a (b is always INVOKER): DEDICATED posts through the ring to an agent thread. */
    RcConformancePair(long seed, LinkConfig link, int bufferBytes, ThreadingMode mode) {
        this(seed, link, bufferBytes, mode, 7);
    }

    /** {@code rnrRetry}: side a's rnr_retry (7: for ever). */
    RcConformancePair(long seed, LinkConfig link, int bufferBytes, ThreadingMode mode, int rnrRetry) {
        this(new ConformanceFabric.Embedded(new SimWorld(seed, 16, link)), bufferBytes, mode, rnrRetry);
    }

    /** On {@code fabric}'s contexts (embedded or attached): side a in {@code mode} with {@code rnrRetry}, b INVOKER. */
    RcConformancePair(ConformanceFabric fabric, int bufferBytes, ThreadingMode mode, int rnrRetry) {
        this.rnrRetry = rnrRetry;
        this.fabric = fabric;
        this.world = fabric.world();
        a = side(bufferBytes, mode);
        b = side(bufferBytes, ThreadingMode.INVOKER);
        connect(a, b, 100, 900, rnrRetry);
        connect(b, a, 900, 100, 7);
    }

    private Side side(int bytes, ThreadingMode mode) {
        Side s = new Side();
        s.ctx = fabric.open(mode);
        s.pd = s.ctx.allocPd();
        s.cq = s.ctx.createCq(4096);
        s.qp = s.pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(s.cq).maxSendWr(256).maxRecvWr(256).maxSendSge(4)
            .maxInlineData(64).build());
        s.mr = s.pd.allocateRegion(bytes, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
        s.mem = s.mr.segment();
        s.qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
            .accessFlags(QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ | QpAttributes.ACCESS_REMOTE_ATOMIC));
        return s;
    }

    private void connect(Side s, Side peer, int rqPsn, int sqPsn, int rnr) {
        var ah = s.pd.createAddressHandle(peer.ctx.mac(), peer.ctx.ip(), peer.ctx.udpPort());
        s.qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(ah.handle()).pathMtu(1024).destQpn(peer.qp.qpNum())
            .rqPsn(rqPsn).maxDestRdAtomic(8).minRnrTimer(1));
        s.qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(sqPsn).timeout(14).retryCnt(7).rnrRetry(rnr).maxRdAtomic(8));
    }

    /** Posts {@code n} receives of {@code size} bytes each at {@code offset} + i × size of {@code s}'s buffer. */
    static void postReceives(Side s, int n, long offset, int size) {
        RecvWr r = new RecvWr();
        for (int i = 0; i < n; i++) {
            r.wrId(5000 + i).sge().set(s.mr, offset + (long) i * size, size);
            if (s.qp.postRecv(r) != 0) {
                throw new IllegalStateException("receive " + i + " refused");
            }
        }
    }

    /** Waits up to about {@code seconds} for {@code n} completions of {@code cq}; returns those that came, in order. */
    static List<WorkCompletion> await(CompletionQueue cq, int n, int seconds) {
        List<WorkCompletion> got = new ArrayList<>();
        for (int i = 0; i < seconds * 1000 && got.size() < n; i++) {
            WorkCompletion[] some = CompletionQueue.array(n - got.size());
            int k = cq.await(some, 1, TimeUnit.MILLISECONDS);
            for (int j = 0; j < k; j++) {
                got.add(some[j]);
            }
        }
        return got;
    }

    /** What else {@code cq} gets within about {@code millis}. */
    static List<WorkCompletion> drain(CompletionQueue cq, int millis) {
        List<WorkCompletion> got = new ArrayList<>();
        for (int i = 0; i < millis; i++) {
            WorkCompletion[] some = CompletionQueue.array(64);
            int k = cq.await(some, 1, TimeUnit.MILLISECONDS);
            for (int j = 0; j < k; j++) {
                got.add(some[j]);
            }
        }
        return got;
    }

    @Override
    public void close() {
        a.ctx.close();
        b.ctx.close();
        fabric.close();
        arena.close();
    }
}
