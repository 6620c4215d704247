package io.srdnic.bench;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * contexts INVOKER, one thread). {@code -prof gc} shows 0 B/op in steady state, with the counters
 * file on ({@code countersIntervalUs} > 0: the duty cycle copies the transport's counts into it at
 * that interval) as without it ({@code 0}), and the two side by side show what publishing costs.
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

    /** 0: no counters file; otherwise the interval, in µs, at which the counts are copied into it. */
    @Param({"0", "10000", "1000"})
    long countersIntervalUs;

    Path countersDir;

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
        contexts = ContextPair.open(link, this::counters);
        a = contexts.a;
        b = contexts.b;
        ProtectionDomain pda = a.allocPd();
        ProtectionDomain pdb = b.allocPd();
        cqa = a.createCq(64);
        cqb = b.createCq(64);
        qa = pda.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cqa).maxSendWr(16).maxRecvWr(16).build());
        qb = pdb.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cqb).maxSendWr(16).maxRecvWr(16).build());
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

    private ContextConfig counters(ContextConfig config) {
        if (countersIntervalUs == 0) {
            return config;
        }
        try {
            if (countersDir == null) {
                countersDir = Files.createTempDirectory("srdnic-bench-counters");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return config.countersDir(countersDir).countersInterval(countersIntervalUs * 1000);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        contexts.close();
        arena.close();
        if (countersDir != null) {
            try (var files = Files.list(countersDir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(countersDir);
        }
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
