package io.srdnic.bench;

import static io.srdnic.bench.BurstState.N;
import static io.srdnic.bench.BurstState.P0;
import static io.srdnic.bench.BurstState.P1;
import static io.srdnic.bench.BurstState.Q0;

import io.srdnic.ffm.srdnic_shim_h;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The same burst calls as {@link BurstPathBench}, bound with {@code Linker.Option.critical(false)}
 * ({@code *Critical}: no Java-to-native thread-state transition, no safepoint poll on return) and
 * without it ({@code *Plain}: the default downcall, which a GC safepoint can run alongside).
 * <pre>java -jar jmh-benches/target/benchmarks.jar DowncallLinkageBench -prof gc</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m"})
public class DowncallLinkageBench {

    @Benchmark
    public short rxEmptyShimCritical(BurstState s) {
        return srdnic_shim_h.srdnic_rx_burst(P1, Q0, s.pkts, N);
    }

    @Benchmark
    public short rxEmptyShimPlain(BurstState s) throws Throwable {
        return (short) BurstState.ShimPlain.RX.invokeExact(P1, Q0, s.pkts, N);
    }

    @Benchmark
    public short rxEmptyFpOpsCritical(BurstState s) throws Throwable {
        return (short) BurstState.Bound.RX1.invokeExact(BurstState.Bound.RXQ1, s.pkts, N);
    }

    @Benchmark
    public short rxEmptyFpOpsPlain(BurstState s) throws Throwable {
        return (short) BurstState.Bound.RX1_PLAIN.invokeExact(BurstState.Bound.RXQ1, s.pkts, N);
    }

    @Benchmark
    public int txRx32ShimCritical(BurstState s) {
        int sent = srdnic_shim_h.srdnic_tx_burst(P0, Q0, s.pkts, N);
        return sent + srdnic_shim_h.srdnic_rx_burst(P0, Q0, s.pkts, N);
    }

    @Benchmark
    public int txRx32ShimPlain(BurstState s) throws Throwable {
        int sent = (short) BurstState.ShimPlain.TX.invokeExact(P0, Q0, s.pkts, N);
        return sent + (short) BurstState.ShimPlain.RX.invokeExact(P0, Q0, s.pkts, N);
    }

    @Benchmark
    public int txRx32FpOpsCritical(BurstState s) throws Throwable {
        int sent = (short) BurstState.Bound.TX0.invokeExact(BurstState.Bound.TXQ0, s.pkts, N);
        return sent + (short) BurstState.Bound.RX0.invokeExact(BurstState.Bound.RXQ0, s.pkts, N);
    }

    @Benchmark
    public int txRx32FpOpsPlain(BurstState s) throws Throwable {
        int sent = (short) BurstState.Bound.TX0_PLAIN.invokeExact(BurstState.Bound.TXQ0, s.pkts, N);
        return sent + (short) BurstState.Bound.RX0_PLAIN.invokeExact(BurstState.Bound.RXQ0, s.pkts, N);
    }
}
