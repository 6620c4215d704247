package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.request;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.SrcDomain;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Two simulated hosts for SRC tests: host a sends from one SRC QP (in SRC domain {@code da}) to one
 * SRC QP of host b (in SRC domain {@code db}), connected as RC QPs are; b has {@code jobs} SRC SRQs
 * in {@code db}, SRQ j in protection domain j + 1 with SRQ number {@code SRQN + j} and a CQ of its
 * own, as J jobs on b would each have one.
 */
final class SrcPair implements AutoCloseable {
    static final int SRQN = 0x500;

    final SimFabric f;
    final TransportDevice a;
    final TransportDevice b;
    final SrcDomain da;
    final SrcDomain db;
    final TestQp qa;
    final TestQp qb;
    final SharedReceiveQueue[] srqs;
    final CompletionQueue[] srqCqs;
    final int access = QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ | QpAttributes.ACCESS_REMOTE_ATOMIC;
    int rnrRetry = 7;
    int retryCnt = 7;

    SrcPair(LinkConfig link, long seed, int jobs) {
        this(link, seed, jobs, io -> io, io -> io);
    }

    /** With each host's port seen through a wrapper (to record what it sends). */
    SrcPair(LinkConfig link, long seed, int jobs, UnaryOperator<PacketIo> wrapA, UnaryOperator<PacketIo> wrapB) {
        f = new SimFabric(16, link, seed);
        a = f.addHost(new TransportConfig(), wrapA);
        b = f.addHost(new TransportConfig(), wrapB);
        da = a.createSrcDomain();
        db = b.createSrcDomain();
        qa = srcQp(a, da);
        qb = srcQp(b, db);
        srqs = new SharedReceiveQueue[jobs];
        srqCqs = new CompletionQueue[jobs];
        for (int j = 0; j < jobs; j++) {
            srqCqs[j] = new CompletionQueue(1 << 14);
            srqs[j] = b.createSrq(new SrqAttributes().maxWr(256).pd(j + 1).srcDomain(db).srcSrqNumber(SRQN + j).srcCq(srqCqs[j]));
        }
    }

    static TestQp srcQp(TransportDevice t, SrcDomain domain) {
        CompletionQueue scq = new CompletionQueue(1 << 14);
        return new TestQp(t.createQp(new TransportQpAttributes(QpType.SRC).sqDepth(256).srcDomain(domain).sendCq(scq)), scq, null, null);
    }

    /** Both QPs to RTS, each pointing at the other, with RC's attributes. */
    SrcPair connect() {
        connect(f, qa.qp(), a, 1, qb.qpn(), 1000, 5000, access, rnrRetry, retryCnt);
        connect(f, qb.qp(), b, 0, qa.qpn(), 5000, 1000, access, rnrRetry, retryCnt);
        return this;
    }

    static void connect(SimFabric f, DeviceQp qp, TransportDevice t, int peerHost, int peerQpn, int rqPsn, int sqPsn, int access,
            int rnrRetry,
                        int retryCnt) {
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(access));
        qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(f.ah(t, peerHost)).pathMtu(1024).destQpn(peerQpn).rqPsn(rqPsn)
            .maxDestRdAtomic(4).minRnrTimer(1));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(sqPsn).timeout(10).retryCnt(retryCnt).rnrRetry(rnrRetry).maxRdAtomic(4));
    }

    /** Posts {@code count} receives of {@code size} bytes to SRQ {@code job}, wr ids 1000 × job + i; returns their buffer. */
    MemorySegment receives(int job, int count, int size) {
        MemorySegment buffer = f.arena.allocate((long) count * size, 64);
        for (int i = 0; i < count; i++) {
            assertTrue(srqs[job].postReceive(1000L * job + i, buffer, (long) i * size, size));
        }
        return buffer;
    }

    int post(int srqn, int opcode, long wrId, MemorySegment buffer, long offset, int length, long remoteAddress, int rkey, int imm) {
        return a.post(qa.qp(), request(wrId, opcode, buffer, offset, length).immediate(imm).remote(remoteAddress, rkey).remoteSrqn(srqn));
    }

    List<TestQp.Wc> sendCompletions(int n, long maxNanos) {
        return RcPair.sendCompletions(f, qa, n, maxNanos);
    }

    /** {@code count} × {@code size} seeded random bytes to send from. */
    MemorySegment random(int count, int size, long seed) {
        return RcPair.random(f.arena, (long) count * size, seed);
    }

    /** The completions of SRQ {@code job}'s CQ so far. */
    List<TestQp.Wc> srqCompletions(int job) {
        return new TestQp(null, srqCqs[job], srqCqs[job], null).receives();
    }

    @Override
    public void close() {
        f.close();
    }
}
