package io.srdnic.bench;

import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.transport.QpState;
import io.srdnic.srd.transport.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The verbs path end to end: post a send, run both hosts until the receiver's CQ has the message
 * and the sender's CQ has the (ACK-backed) send completion, repost the receive. On the simulated
 * network (CPU only: the wire takes virtual time) and on a real net_ring pair in this JVM (both
 * contexts INVOKER, one thread). {@code -prof gc} shows 0 B/op in steady state.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class VerbsRoundTripBench {
    static final int QKEY = 0x77;

    @Param({"sim", "ring"})
    String link;

    @Param({"64"})
    int size;

    Arena arena;
    ContextPair contexts;
    Context a;
    Context b;
    QueuePair qa;
    QueuePair qb;
    CompletionQueue cqa;
    CompletionQueue cqb;
    MemoryRegion mra;
    MemoryRegion mrb;
    final SendWr send = new SendWr();
    final RecvWr recv = new RecvWr();
    final WorkCompletion[] wcs = CompletionQueue.array(16);

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        contexts = ContextPair.open(link);
        a = contexts.a;
        b = contexts.b;
        ProtectionDomain pda = a.allocPd();
        ProtectionDomain pdb = b.allocPd();
        cqa = a.createCq(64);
        cqb = b.createCq(64);
        qa = pda.createQueuePair(QpType.SRD, cqa, cqa, 16, 16, 1, 0);
        qb = pdb.createQueuePair(QpType.SRD, cqb, cqb, 16, 16, 1, 0);
        mra = pda.registerMemory(arena.allocate(size), Access.LOCAL_WRITE);
        mrb = pdb.registerMemory(arena.allocate(size), Access.LOCAL_WRITE);
        for (QueuePair qp : new QueuePair[] {qa, qb}) {
            qp.modify(QpState.INIT, QKEY);
        }
        recv.wrId(1).sge().set(mrb, 0, size);
        qb.postRecv(recv);
        qa.modify(QpState.RTR, 0);
        qa.modify(QpState.RTS, 0);
        qb.modify(QpState.RTR, 0);
        qb.modify(QpState.RTS, 0);
        AddressHandle toB = pda.createAddressHandle(b.mac(), b.ip(), b.udpPort());
        send.wrId(2).destination(toB, qb.qpNum(), QKEY).numSge(1).sge(0).set(mra, 0, size);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        contexts.close();
        arena.close();
    }

    @Benchmark
    public int sendAndComplete() {
        qa.postSend(send);
        boolean received = false;
        boolean completed = false;
        while (!(received && completed)) {
            b.progress();
            int n = cqa.poll(wcs);
            completed |= n > 0;
            n = cqb.poll(wcs);
            for (int i = 0; i < n; i++) {
                if (wcs[i].opcode() != WcOpcode.SEND) {
                    received = true;
                    qb.postRecv(recv);
                }
            }
        }
        return 1;
    }
}
