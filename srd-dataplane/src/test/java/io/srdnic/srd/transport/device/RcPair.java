package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Two simulated hosts with one RC QP each, connected to each other (RESET → INIT → RTR → RTS with
 * the attributes verbs requires), for RC tests: host a is the requester, b the responder.
 */
final class RcPair implements AutoCloseable {
    static final long MS = 1_000_000;
    static final int MIB = 1 << 20;
    static final LinkConfig HOSTILE = LinkConfig.builder().lossProbability(0.05).duplicateProbability(0.05).reorderProbability(0.05)
        .build();

    final SimFabric f;
    final TransportDevice a;
    final TransportDevice b;
    final TestQp qa;
    final TestQp qb;
    final int access = QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ | QpAttributes.ACCESS_REMOTE_ATOMIC;

    /** Knobs of the connection, set before {@link #connect}. */
    int retryCnt = 7;
    int timeout = 10;
    int rnrRetry = 7;
    int minRnrTimer = 1;
    int maxRdAtomic = 4;

    RcPair(LinkConfig link, long seed, TransportConfig config) {
        this(link, seed, config, null);
    }

    /** With {@code srq} non-null, b's QP takes its receives from an SRQ of b that the function makes. */
    RcPair(LinkConfig link, long seed, TransportConfig config, Function<TransportDevice, SharedReceiveQueue> srq) {
        f = new SimFabric(16, link, seed);
        a = f.addHost(config.copy());
        b = f.addHost(config.copy());
        qa = create(a);
        qb = srq == null ? create(b) : createOn(b, srq.apply(b));
    }

    private static TestQp createOn(TransportDevice t, SharedReceiveQueue srq) {
        CompletionQueue scq = new CompletionQueue(1 << 14);
        CompletionQueue rcq = new CompletionQueue(1 << 14);
        return new TestQp(t.createQp(new TransportQpAttributes(QpType.RC).sqDepth(256).srq(srq).sendCq(scq).recvCq(rcq)), scq, rcq, null);
    }

    RcPair(LinkConfig link, long seed) {
        this(link, seed, new TransportConfig());
    }

    /** Hosts a and b see their ports through {@code wrapA} and {@code wrapB} (a filter of the frames they receive, say). */
    RcPair(LinkConfig link, long seed, UnaryOperator<PacketIo> wrapA,
           UnaryOperator<PacketIo> wrapB) {
        f = new SimFabric(16, link, seed);
        a = f.addHost(new TransportConfig(), wrapA);
        b = f.addHost(new TransportConfig(), wrapB);
        qa = create(a);
        qb = create(b);
    }

    /** Both hosts with {@code config}; host a sees its port through {@code wrapA} (a driver that frees late, say). */
    RcPair(LinkConfig link, long seed, UnaryOperator<PacketIo> wrapA, TransportConfig config) {
        f = new SimFabric(16, link, seed);
        a = f.addHost(config.copy(), wrapA);
        b = f.addHost(config.copy());
        qa = create(a);
        qb = create(b);
    }

    private static TestQp create(TransportDevice t) {
        CompletionQueue scq = new CompletionQueue(1 << 14);
        CompletionQueue rcq = new CompletionQueue(1 << 14);
        DeviceQp qp = t.createQp(new TransportQpAttributes(QpType.RC).sqDepth(256).rqDepth(256).sendCq(scq).recvCq(rcq));
        return new TestQp(qp, scq, rcq, null);
    }

    /** Both QPs to RTS, each pointing at the other. */
    RcPair connect() {
        connect(qa.qp(), a, 1, qb.qpn(), 1000, 5000);
        connect(qb.qp(), b, 0, qa.qpn(), 5000, 1000);
        return this;
    }

    private void connect(DeviceQp qp, TransportDevice t, int peerHost, int peerQpn, int rqPsn, int sqPsn) {
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(access));
        qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(f.ah(t, peerHost)).pathMtu(1024).destQpn(peerQpn).rqPsn(rqPsn)
            .maxDestRdAtomic(maxRdAtomic).minRnrTimer(minRnrTimer));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(sqPsn).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry)
            .maxRdAtomic(maxRdAtomic));
    }

    /** Posts {@code count} receives of {@code size} bytes each at b, in one fresh buffer; returns it. */
    MemorySegment receives(int count, int size) {
        MemorySegment buffer = f.arena.allocate((long) count * size, 64);
        for (int i = 0; i < count; i++) {
            assertTrue(qb.qp().postReceive(100 + i, buffer, (long) i * size, size));
        }
        return buffer;
    }

    int post(int opcode, long wrId, MemorySegment buffer, long offset, int length, long remoteAddress, int rkey, int imm) {
        return a.post(qa.qp(), request(wrId, opcode, buffer, offset, length).immediate(imm).remote(remoteAddress, rkey));
    }

    /** Posts an atomic from a into the 8 bytes at {@code offset} of {@code buffer}: CMP_SWAP's compare and swap, FETCH_ADD's add. */
    int atomic(int opcode, long wrId, MemorySegment buffer, long offset, long remoteAddress, int rkey, long compareOrAdd, long swap) {
        return a.post(qa.qp(), Requests.atomic(wrId, opcode, buffer, offset).remote(remoteAddress, rkey).operands(compareOrAdd, swap));
    }

    /** Runs until host a has {@code n} send completions; returns them in completion order. */
    List<TestQp.Wc> sendCompletions(int n, long maxNanos) {
        return sendCompletions(f, qa, n, maxNanos);
    }

    /** Runs {@code f} until {@code q} has {@code n} send completions; returns them in completion order. */
    static List<TestQp.Wc> sendCompletions(SimFabric f, TestQp q, int n, long maxNanos) {
        List<TestQp.Wc> out = new ArrayList<>();
        assertTrue(f.runUntil(() -> {
            out.addAll(q.sends());
            return out.size() >= n;
        }, maxNanos), () -> "expected " + n + " send completions, got " + out);
        assertEquals(n, out.size());
        return out;
    }

    MemorySegment random(long size, long seed) {
        return random(f.arena, size, seed);
    }

    /** {@code size} seeded random bytes in {@code arena}. */
    static MemorySegment random(Arena arena, long size, long seed) {
        MemorySegment s = arena.allocate(size, 64);
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
        return s;
    }

    static byte[] bytes(MemorySegment s, long offset, long length) {
        return s.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public void close() {
        f.close();
    }
}
