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
 * How a burst reaches the PMD, all with {@code critical(false)}:
 * <ul>
 * <li>{@code shim}: {@code srdnic_rx_burst(port, queue, pkts, n)}, the C shim around the inline
 *     {@code rte_eth_rx_burst} (looks up {@code rte_eth_fp_ops[port]}, calls the PMD, checks for RX callbacks);</li>
 * <li>{@code fpOps}: the PMD function from {@code rte_eth_fp_ops[port].rx_pkt_burst} called with
 *     {@code rxq.data[queue]}, through a handle bound to that function pointer once at set-up;</li>
 * <li>{@code fpOpsByAddress}: the same function, through one {@code static final} handle per signature
 *     taking the function pointer as its first argument (what {@link IoForward} uses: no handle per port).</li>
 * </ul>
 * {@code rxEmpty*}: one RX burst on an empty queue (the cost of getting there and back);
 * {@code txRx32*}: TX 32 mbufs on the self-looping port then RX the same 32 (two bursts doing real work).
 * {@code rxEmptyShimSharedArena}: {@code rxEmptyShim} with the burst array in a shared arena instead of
 * an auto one — what the choice of arena costs on every downcall.
 * <pre>java -jar jmh-benches/target/benchmarks.jar BurstPathBench -prof gc</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m"})
public class BurstPathBench {

    @Benchmark
    public short rxEmptyShim(BurstState s) {
        return srdnic_shim_h.srdnic_rx_burst(P1, Q0, s.pkts, N);
    }

    /** rxEmptyShim with the burst array from Arena.ofShared(): the downcall acquires and releases the arena (two atomics). */
    @Benchmark
    public short rxEmptyShimSharedArena(BurstState s) {
        return srdnic_shim_h.srdnic_rx_burst(P1, Q0, s.pktsShared, N);
    }

    @Benchmark
    public short rxEmptyFpOps(BurstState s) throws Throwable {
        return (short) BurstState.Bound.RX1.invokeExact(BurstState.Bound.RXQ1, s.pkts, N);
    }

    @Benchmark
    public short rxEmptyFpOpsByAddress(BurstState s) throws Throwable {
        return (short) FpOpsQueue.BURST_BY_ADDRESS.invokeExact(BurstState.Bound.RX1_FN, BurstState.Bound.RXQ1, s.pkts, N);
    }

    @Benchmark
    public short rxEmptyShimLong(BurstState s) throws Throwable {
        return (short) BurstState.ShimPlain.RX_LONG.invokeExact(P1, Q0, s.pktsAddress, N);
    }

    @Benchmark
    public short rxEmptyFpOpsLong(BurstState s) throws Throwable {
        return (short) BurstState.Bound.RX1_LONG.invokeExact(BurstState.Bound.RXQ1_ADDR, s.pktsAddress, N);
    }

    @Benchmark
    public short rxEmptyFpOpsByAddressLong(BurstState s) throws Throwable {
        return (short) FpOpsQueue.BURST_BY_ADDRESS_LONG.invokeExact(BurstState.Bound.RX1_FN, BurstState.Bound.RXQ1_ADDR, s.pktsAddress, N);
    }

    @Benchmark
    public int txRx32Shim(BurstState s) {
        int sent = srdnic_shim_h.srdnic_tx_burst(P0, Q0, s.pkts, N);
        return sent + srdnic_shim_h.srdnic_rx_burst(P0, Q0, s.pkts, N);
    }

    @Benchmark
    public int txRx32FpOps(BurstState s) throws Throwable {
        int sent = (short) BurstState.Bound.TX0.invokeExact(BurstState.Bound.TXQ0, s.pkts, N);
        return sent + (short) BurstState.Bound.RX0.invokeExact(BurstState.Bound.RXQ0, s.pkts, N);
    }

    @Benchmark
    public int txRx32FpOpsByAddress(BurstState s) throws Throwable {
        int sent = (short) FpOpsQueue.BURST_BY_ADDRESS.invokeExact(BurstState.Bound.TX0_FN, BurstState.Bound.TXQ0, s.pkts, N);
        return sent + (short) FpOpsQueue.BURST_BY_ADDRESS.invokeExact(BurstState.Bound.RX0_FN, BurstState.Bound.RXQ0, s.pkts, N);
    }

    @Benchmark
    public int txRx32ShimLong(BurstState s) throws Throwable {
        int sent = (short) BurstState.ShimPlain.TX_LONG.invokeExact(P0, Q0, s.pktsAddress, N);
        return sent + (short) BurstState.ShimPlain.RX_LONG.invokeExact(P0, Q0, s.pktsAddress, N);
    }

    @Benchmark
    public int txRx32FpOpsLong(BurstState s) throws Throwable {
        int sent = (short) BurstState.Bound.TX0_LONG.invokeExact(BurstState.Bound.TXQ0_ADDR, s.pktsAddress, N);
        return sent + (short) BurstState.Bound.RX0_LONG.invokeExact(BurstState.Bound.RXQ0_ADDR, s.pktsAddress, N);
    }

    @Benchmark
    public int txRx32FpOpsByAddressLong(BurstState s) throws Throwable {
        int sent = (short) FpOpsQueue.BURST_BY_ADDRESS_LONG.invokeExact(BurstState.Bound.TX0_FN, BurstState.Bound.TXQ0_ADDR,
                s.pktsAddress, N);
        return sent + (short) FpOpsQueue.BURST_BY_ADDRESS_LONG.invokeExact(BurstState.Bound.RX0_FN, BurstState.Bound.RXQ0_ADDR,
                s.pktsAddress, N);
    }
}
