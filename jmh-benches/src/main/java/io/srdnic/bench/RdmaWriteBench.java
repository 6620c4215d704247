package io.srdnic.bench;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * One RDMA WRITE through the verbs API, from post to its send completion: the completion comes only
 * once the responder has acknowledged every segment, so one op is the whole write placed in remote
 * memory (64 KiB is many packets). On the simulated network (CPU only: the wire takes virtual time)
 * and on a real net_ring pair in this JVM (both contexts INVOKER, one thread). {@code -prof gc}
 * shows 0 B/op in steady state: its iterations allocate the harness's own 0.007 MB/sec, whatever
 * the size. JMH runs the trial tear-down (closing the contexts, about 60 KB; EAL on {@code ring},
 * about 750 KB) inside the last measurement iteration, which alone shows bytes per op, and so
 * does the average over iterations.
 *
 * <p>Not a no-op: each op stamps a fresh sequence number into the first and the last 8 bytes of
 * the source and checks that its completion is a successful RDMA_WRITE. Outside the measured
 * method, the remote region is zeroed before each iteration and must equal the source byte for
 * byte after it (so the iteration's last write landed whole, its first and last segments fresh),
 * and at the end of the trial the responder must have placed at least {@code size / mtu} segments
 * per completed write.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class RdmaWriteBench {
    static final int QKEY = 0x77;

    @Param({"sim", "ring"})
    String link;

    @Param({"64", "4096", "65536"})
    int size;

    /** SRD (the write's packets land in any order) or RC (a connected QP, in order). */
    @Param({"srd", "rc"})
    String transport;

    /** The smallest payload a packet sends from registered memory without a copy (zero-copy-min-bytes; 1000000: never). */
    @Param({"2048"})
    int zeroCopyMinBytes;

    Arena arena;
    ContextPair contexts;
    Context a;
    Context b;
    QueuePair qa;
    QueuePair qb;
    CompletionQueue cqa;
    MemorySegment source;
    MemorySegment target;
    final SendWr write = new SendWr();
    final WorkCompletion[] wcs = CompletionQueue.array(4);
    long seq;
    /** Writes completed in this trial, and in this iteration. */
    long ops;
    long iterationOps;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        contexts = ContextPair.open(link, c -> {
            c.srd().zeroCopyMinBytes(zeroCopyMinBytes);
            return c;
        });
        a = contexts.a;
        b = contexts.b;
        ProtectionDomain pda = a.allocPd();
        ProtectionDomain pdb = b.allocPd();
        cqa = a.createCq(64);
        CompletionQueue cqb = b.createCq(64);
        QpType type = transport.equals("rc") ? QpType.RC : QpType.SRD;
        qa = pda.createQueuePair(QpInitAttributes.builder(type).cq(cqa).maxSendWr(16).maxRecvWr(16).build());
        qb = pdb.createQueuePair(QpInitAttributes.builder(type).cq(cqb).maxSendWr(16).maxRecvWr(16).build());
        source = arena.allocate(size, 64);
        target = arena.allocate(size, 64);
        for (long i = 0; i < size; i += 8) {
            source.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E37_79B9_7F4A_7C15L);
        }
        MemoryRegion local = pda.registerMemory(source, Access.LOCAL_WRITE);
        MemoryRegion remote = pdb.registerMemory(target, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        AddressHandle toB = pda.createAddressHandle(b.mac(), b.ip(), b.udpPort());
        if (type == QpType.RC) {
            AddressHandle toA = pdb.createAddressHandle(a.mac(), a.ip(), a.udpPort());
            connect(qa, toB, qb.qpNum());
            connect(qb, toA, qa.qpNum());
        } else {
            for (QueuePair qp : new QueuePair[] {qa, qb}) {
                qp.modify(QpState.INIT, QKEY);
                qp.modify(QpState.RTR, 0);
                qp.modify(QpState.RTS, 0);
            }
        }
        write.wrId(3).opcode(SendWr.OP_RDMA_WRITE).destination(toB, qb.qpNum(), QKEY).rdma(target.address(), remote.rkey())
            .numSge(1).sge(0).set(local, 0, size);
    }

    /** RC: INIT, RTR and RTS with what verbs requires, {@code qp} pointing at QP {@code peerQpn} behind {@code path}. */
    private static void connect(QueuePair qp, AddressHandle path, int peerQpn) {
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(QpAttributes.ACCESS_REMOTE_WRITE));
        qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(path.handle()).pathMtu(4096).destQpn(peerQpn).rqPsn(0)
            .maxDestRdAtomic(1).minRnrTimer(1));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
    }

    /** Iteration hooks run inside the gc profiler's window: these two allocate nothing. */
    @Setup(Level.Iteration)
    public void clearTarget() {
        target.fill((byte) 0);
        iterationOps = 0;
    }

    @TearDown(Level.Iteration)
    public void checkLanded() {
        long mismatch = MemorySegment.mismatch(source, 0, size, target, 0, size);
        if (iterationOps == 0 || mismatch != -1) {
            throw new IllegalStateException(link + "/" + size + ": " + iterationOps + " writes completed this iteration, "
                + "remote memory differs from the source at byte " + mismatch);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        long placed = b.counters().get("rdma_writes_placed");
        long segments = (size + a.mtu() - 1) / a.mtu(); // a lower bound: the RDMA header takes room too
        contexts.close();
        arena.close();
        if (placed < ops * segments) {
            throw new IllegalStateException(link + "/" + size + ": " + ops + " writes completed but the responder placed only "
                + placed + " segments (expected at least " + ops * segments + ")");
        }
    }

    @Benchmark
    public long writeAndComplete() {
        long s = ++seq;
        source.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, s);
        source.set(ValueLayout.JAVA_LONG_UNALIGNED, size - 8, s);
        if (qa.postSend(write) != 0) {
            throw failed("post refused");
        }
        int n;
        do {
            b.progress();
            n = cqa.poll(wcs, 1);
        } while (n == 0);
        WorkCompletion wc = wcs[0];
        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.RDMA_WRITE) {
            throw failed(wc.toString());
        }
        ops++;
        iterationOps++;
        return s;
    }

    private IllegalStateException failed(String why) {
        return new IllegalStateException(link + "/" + size + ": RDMA WRITE " + seq + ": " + why);
    }
}
