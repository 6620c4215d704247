package io.srdnic.bench;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
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
 * The per-byte work of one packet's payload on the sender, each way it can be done (issue 28, items
 * 3 and 4): copied into the mbuf with the UDP checksum summed over it (the copy path today), copied
 * only (UDP checksum offloaded or 0), summed where it lies (zero-copy with the software checksum),
 * an end-to-end CRC32C where it lies (the JDK's intrinsic; zero-copy with a CRC trailer, as
 * RoCEv2's ICRC) and copied with a CRC32C. The payload is "registered memory" (native, cache-warm,
 * as a message the application just wrote). {@code -prof gc}: 0 B/op.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dsrdnic.shim.path=/nonexistent"})
@State(Scope.Thread)
public class IntegrityBench {
    @Param({"64", "1024", "4096"})
    int payload;

    Arena arena;
    MemorySegment memory;
    Mbuf mbuf;
    /** The registered memory as an mbuf-shaped view, for the ones'-complement sum where the payload lies. */
    Mbuf inPlace;
    ByteBuffer memoryBuffer;
    final CRC32C crc = new CRC32C();

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofConfined();
        SimBufferPool pool = new SimBufferPool(arena, 2, 8192);
        MbufBatch batch = new MbufBatch(arena, 2);
        pool.allocate(batch, 2, 0);
        mbuf = new Mbuf().wrap(batch.address(0));
        memory = arena.allocate(payload, 64);
        for (int i = 0; i < payload; i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        // the second buffer's data room repointed at the memory, as Mbuf.attachExternal does
        inPlace = new Mbuf().wrap(batch.address(1)).attachExternal(memory.address(), payload, 0);
        memoryBuffer = memory.asByteBuffer();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public long copyAndUdpSum() {
        mbuf.copyFrom(memory, 0, 90, payload);
        return mbuf.onesComplementSum(90, payload, 0);
    }

    @Benchmark
    public int copyOnly() {
        mbuf.copyFrom(memory, 0, 90, payload);
        return mbuf.getByte(90);
    }

    @Benchmark
    public long udpSumInPlace() {
        return inPlace.onesComplementSum(0, payload, 0);
    }

    @Benchmark
    public long crc32cInPlace() {
        crc.reset();
        memoryBuffer.clear();
        crc.update(memoryBuffer);
        return crc.getValue();
    }

    @Benchmark
    public long copyAndCrc32c() {
        mbuf.copyFrom(memory, 0, 90, payload);
        crc.reset();
        memoryBuffer.clear();
        crc.update(memoryBuffer);
        return crc.getValue();
    }
}
