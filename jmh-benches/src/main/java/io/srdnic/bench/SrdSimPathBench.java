package io.srdnic.bench;

import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.transport.QpState;
import io.srdnic.srd.transport.SrdConfig;
import io.srdnic.srd.transport.SrdQp;
import io.srdnic.srd.transport.SrdTransport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * CPU per SRD message, requester and responder together, on the simulated network: each
 * invocation posts a batch of messages from A to B and runs both transports (and the simulated
 * wire) in virtual time until every one has completed, then reaps the completions and reposts the
 * receives. The result is wall nanoseconds per message; {@code -prof gc} shows 0 B/op.
 * <p>
 * {@code exportCounters}: one copy of A's counts into a counters file (its device counters, its
 * context to B with 16 paths, its QP: about 200 values), what the dataplane does every
 * countersInterval; nanoseconds per export, 0 B/op.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dsrdnic.shim.path=/nonexistent"})
@State(Scope.Thread)
public class SrdSimPathBench {
    static final int BATCH = 64;
    static final int QKEY = 0x2222;

    @Param({"64", "4096"})
    int size;

    SimNetwork network;
    Arena arena;
    SrdTransport a;
    SrdTransport b;
    SrdQp qa;
    SrdQp qb;
    CompletionQueue sendCq;
    CompletionQueue recvCq;
    MemorySegment payload;
    MemorySegment receives;
    int ah;
    int completed;
    final CompletionQueue.CompletionSink onSend = (wr, st, op, len, hasImm, imm, qpn, src, ip) -> completed++;
    final CompletionQueue.CompletionSink onRecv = (wr, st, op, len, hasImm, imm, qpn, src, ip) ->
        qb.postReceive(wr, receives, wr * size, size);

    @Setup(Level.Trial)
    public void setUp() {
        network = new SimNetwork(1, SimNetwork.Config.builder().pathCount(16).poolSize(4096).build());
        arena = Arena.ofConfined();
        SimPort pa = network.addHost(0x0200_0000_0001L);
        SimPort pb = network.addHost(0x0200_0000_0002L);
        a = new SrdTransport(pa, new SrdConfig().localIp(0x0A000001), 11, 1);
        b = new SrdTransport(pb, new SrdConfig().localIp(0x0A000002), 22, 2);
        sendCq = new CompletionQueue(1024);
        recvCq = new CompletionQueue(1024);
        qa = ready(a.createQp(BATCH, 1, sendCq, new CompletionQueue(8)));
        qb = b.createQp(1, BATCH, new CompletionQueue(8), recvCq);
        qb.modify(QpState.INIT, QKEY);
        receives = arena.allocate((long) BATCH * size);
        for (int i = 0; i < BATCH; i++) {
            qb.postReceive(i, receives, (long) i * size, size);
        }
        qb.modify(QpState.RTR, 0);
        qb.modify(QpState.RTS, 0);
        payload = arena.allocate(size);
        ah = a.createAddressHandle(0x0200_0000_0002L, 0x0A000002, a.config().udpPort());
    }

    static SrdQp ready(SrdQp qp) {
        qp.modify(QpState.INIT, QKEY);
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        return qp;
    }

    java.nio.file.Path countersFile;
    io.srdnic.srd.counters.CountersWriter countersWriter;
    io.srdnic.srd.transport.TransportCounters counters;

    /** A's counters file, made after one batch so that its context to B (and its paths) exist. */
    @Setup(Level.Trial)
    public void setUpCounters() throws java.io.IOException {
        postAndCompleteBatch();
        countersFile = java.nio.file.Files.createTempFile("srdnic-bench", io.srdnic.srd.counters.CountersLayout.FILE_SUFFIX);
        countersWriter = io.srdnic.srd.counters.CountersWriter.create(countersFile, "bench", 4096);
        counters = new io.srdnic.srd.transport.TransportCounters(a, countersWriter, "device=a");
        counters.export();
    }

    @TearDown(Level.Trial)
    public void tearDownCounters() throws java.io.IOException {
        countersWriter.close();
        java.nio.file.Files.deleteIfExists(countersFile);
    }

    @Benchmark
    public void exportCounters() {
        counters.export();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        a.close();
        b.close();
        network.close();
        arena.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int postAndCompleteBatch() {
        for (int i = 0; i < BATCH; i++) {
            a.postSend(qa, ah, qb.qpn(), QKEY, i, payload, 0, size, false, 0, true);
        }
        completed = 0;
        while (completed < BATCH) {
            long now = network.clock().now();
            int work = a.doWork(now) + b.doWork(now);
            sendCq.poll(onSend, BATCH);
            recvCq.poll(onRecv, BATCH);
            if (work == 0) {
                long next = Math.min(network.nextEventTime(), Math.min(a.nextDeadline(), b.nextDeadline()));
                network.clock().advanceTo(Math.max(now + 1, next == Long.MAX_VALUE ? now + 1 : next));
            }
        }
        return completed;
    }
}
