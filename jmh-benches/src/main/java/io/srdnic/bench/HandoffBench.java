package io.srdnic.bench;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.lcore.HandoffCounts;
import io.srdnic.pmd.lcore.HandoffRing;
import io.srdnic.pmd.lcore.PortDispatcher;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the software hand-off of {@code srdnic dataplane --lcores} costs per frame, with
 * {@code -prof gc} to show it allocates nothing:
 * <ul>
 * <li>{@code ring}: one thread offers a burst of 32 mbuf addresses to a {@link HandoffRing} and
 *     drains them (the ring's own work, its cache lines staying on one core);
 * <li>{@code steer}: a {@link PortDispatcher} steers a burst of 32 frames by IPv4 destination to
 *     two lanes, half its own and half another lcore's, and both lanes take theirs (reading each
 *     frame's header, the lane lookup and the rings — all but the core-to-core transfer);
 * <li>{@code crossCore}: a producer thread offers and a consumer thread drains, as two lcores do
 *     (each frame's slot and the indices move between cores; on a machine with fewer free cores
 *     than threads this measures the scheduler too). Read {@code crossCore:producer}: it offers
 *     until the whole burst is on, so its time is per frame that crossed; the consumer's ops
 *     include drains that found nothing.
 * </ul>
 * One op is one frame.
 * <pre>java -jar jmh-benches/target/benchmarks.jar HandoffBench -prof gc</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m", "-Dsrdnic.shim.path=/nonexistent/no-dpdk-here.so"})
public class HandoffBench {
    private static final int BURST = 32;

    /** One thread's ring and batch. */
    @State(Scope.Thread)
    public static class Ring {
        final HandoffRing ring = new HandoffRing(512);
        Arena arena;
        MbufBatch batch;

        @Setup(Level.Trial)
        public void setUp() {
            arena = Arena.ofConfined();
            batch = new MbufBatch(arena, BURST);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public int ring(Ring r) {
        for (int i = 0; i < BURST; i++) {
            r.ring.offer(0x1000L + i);
        }
        r.batch.clear();
        return r.ring.drainTo(r.batch);
    }

    /** A port that receives the same 32 frames on every burst, to two addresses by turns; frees nothing (they are reused). */
    static final class FixedFrames implements PacketIo {
        final long[] frames = new long[BURST];

        @Override
        public int receive(MbufBatch batch) {
            batch.clear();
            for (long f : frames) {
                batch.add(f);
            }
            return frames.length;
        }

        @Override
        public int transmit(MbufBatch batch) {
            int n = batch.count();
            batch.clear();
            return n;
        }

        @Override
        public int allocate(MbufBatch batch, int n) {
            return 0;
        }

        @Override
        public void free(MbufBatch batch) {
            batch.clear();
        }

        @Override
        public int maxFrameLength() {
            return 1514;
        }

        @Override
        public long macAddress() {
            return 2;
        }

        @Override
        public long txDropped() {
            return 0;
        }
    }

    @State(Scope.Thread)
    public static class Steering {
        Arena arena;
        PortDispatcher dispatcher;
        PacketIo own;
        PacketIo other;
        MbufBatch batch;

        @Setup(Level.Trial)
        public void setUp() {
            arena = Arena.ofShared();
            SimBufferPool pool = new SimBufferPool(arena, BURST);
            FixedFrames port = new FixedFrames();
            batch = new MbufBatch(arena, BURST);
            pool.allocate(batch, BURST, 0);
            Mbuf m = new Mbuf();
            for (int i = 0; i < BURST; i++) {
                port.frames[i] = batch.address(i);
                m.wrap(port.frames[i]).frameLength(64);
                m.putShortBE(12, (short) 0x0800).putByte(14, (byte) 0x45).putByte(23, (byte) 17).putIntBE(30, 0x0A00_0001 + (i & 1));
            }
            batch.clear();
            HandoffCounts counts = new HandoffCounts();
            dispatcher = new PortDispatcher(port, new int[] {0x0A00_0001, 0x0A00_0002}, 0,
                    new HandoffCounts[] {counts, new HandoffCounts()},
                512, arena);
            own = dispatcher.lane(0);
            other = dispatcher.lane(1);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public int steer(Steering s) {
        s.dispatcher.poll();
        int n = s.own.receive(s.batch);
        s.batch.clear();
        n += s.other.receive(s.batch);
        s.batch.clear();
        return n;
    }

    /** The ring two threads share. */
    @State(Scope.Group)
    public static class Shared {
        final HandoffRing ring = new HandoffRing(512);
    }

    @Benchmark
    @Group("crossCore")
    @OperationsPerInvocation(BURST)
    public int producer(Shared s) {
        int offered = 0;
        // Every frame of the burst gets on, so the producer's time per op is one frame's transfer;
        // bounded, in case the consumer has left at the end of an iteration.
        for (int spins = 0; offered < BURST && spins < 1_000_000; spins++) {
            if (s.ring.offer(0x1000L + offered)) {
                offered++;
            } else {
                Thread.onSpinWait();
            }
        }
        return offered;
    }

    @Benchmark
    @Group("crossCore")
    @OperationsPerInvocation(BURST)
    public int consumer(Shared s, Ring mine) {
        mine.batch.clear();
        return s.ring.drainTo(mine.batch);
    }
}
