package io.srdnic.bench;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.srdnic.ffm.rte_eth_fp_ops;
import io.srdnic.ffm.rte_ethdev_h;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * One RX/TX queue pair's entry in {@code rte_eth_fp_ops[port]}: the PMD burst functions and the
 * queue pointers {@code rte_eth_rx_burst}/{@code rte_eth_tx_burst} would pass them.
 * <pre>
 *   rte_eth_fp_ops[port]              (128 B, one cache line for RX, one for TX)
 *   +0   rx_pkt_burst  ──► uint16_t eth_ring_rx(void *rxq, struct rte_mbuf **pkts, uint16_t n)
 *   +24  rxq.data      ──► void *[RTE_MAX_QUEUES_PER_PORT]  ──[queue]──► rxq
 *   +64  tx_pkt_burst  ──► uint16_t eth_ring_tx(void *txq, struct rte_mbuf **pkts, uint16_t n)
 *   +88  txq.data      ──► void *[RTE_MAX_QUEUES_PER_PORT]  ──[queue]──► txq
 * </pre>
 * Read it only after {@code rte_eth_dev_start}: ethdev installs the PMD's functions at start and
 * dummies at stop, and the queue pointers change when the port is reconfigured. What calling these
 * directly skips, compared with the inline wrappers: the RX/TX callbacks (rte_eth_add_rx_callback;
 * none are installed here) and the fast-path trace points (compiled out in Debian's build).
 */
@SuppressWarnings("restricted") // native access is granted at launch: --enable-native-access=ALL-UNNAMED
public record FpOpsQueue(MemorySegment rxBurst, MemorySegment rxq, MemorySegment txBurst, MemorySegment txq) {

    /** {@code eth_rx_burst_t} and {@code eth_tx_burst_t}: {@code uint16_t (*)(void *queue, struct rte_mbuf **pkts, uint16_t n)}. */
    public static final FunctionDescriptor BURST = FunctionDescriptor.of(JAVA_SHORT, ADDRESS, ADDRESS, JAVA_SHORT);

    /**
     * One handle for every PMD burst function: the function pointer is its first argument, so it can
     * be a {@code static final} (and inlined by the JIT) even though the target is only known at run
     * time. A burst never blocks nor calls back into Java: {@code critical(false)} holds.
     */
    public static final MethodHandle BURST_BY_ADDRESS = Linker.nativeLinker().downcallHandle(BURST, Linker.Option.critical(false));

    /**
     * The same signature with the pointers passed as {@code long}s: on LP64 ABIs (x86-64 SysV,
     * AArch64 AAPCS64) a {@code void *} and a {@code long} travel in the same integer register, so
     * the native side cannot tell; the Java side skips FFM's per-argument MemorySegment checks
     * (class, scope, liveness), which cost more than the call itself here.
     */
    public static final FunctionDescriptor BURST_LONG = FunctionDescriptor.of(JAVA_SHORT, JAVA_LONG, JAVA_LONG, JAVA_SHORT);

    /** {@link #BURST_BY_ADDRESS} with {@link #BURST_LONG}: {@code (MemorySegment function, long queue, long pkts, short n) -> short}. */
    public static final MethodHandle BURST_BY_ADDRESS_LONG = Linker.nativeLinker()
            .downcallHandle(BURST_LONG, Linker.Option.critical(false));

    /** Reads the entry of a started port. */
    public static FpOpsQueue of(int port, int queue) {
        if (port < 0 || port >= rte_ethdev_h.RTE_MAX_ETHPORTS || queue < 0) {
            throw new IllegalArgumentException("port " + port + " queue " + queue);
        }
        MemorySegment ops = rte_ethdev_h.rte_eth_fp_ops$segment().asSlice(port * rte_eth_fp_ops.SIZE, rte_eth_fp_ops.SIZE);
        MemorySegment rxData = ops.get(ADDRESS, rte_eth_fp_ops.RXQ_DATA_OFFSET).reinterpret(ADDRESS.byteSize() * (queue + 1));
        MemorySegment txData = ops.get(ADDRESS, rte_eth_fp_ops.TXQ_DATA_OFFSET).reinterpret(ADDRESS.byteSize() * (queue + 1));
        FpOpsQueue q = new FpOpsQueue(ops.get(ADDRESS, rte_eth_fp_ops.RX_PKT_BURST_OFFSET), rxData.getAtIndex(ADDRESS, queue),
            ops.get(ADDRESS, rte_eth_fp_ops.TX_PKT_BURST_OFFSET), txData.getAtIndex(ADDRESS, queue));
        if (q.rxq.equals(MemorySegment.NULL) || q.txq.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("port " + port + " queue " + queue
                    + " has no queue data in rte_eth_fp_ops: configure and start the port first");
        }
        return q;
    }

    /** A downcall handle bound to one burst function, pointers as {@code long}s ({@link #BURST_LONG}), critical. */
    public static MethodHandle bindLong(MemorySegment function) {
        return Linker.nativeLinker().downcallHandle(function, BURST_LONG, Linker.Option.critical(false));
    }

    /** A downcall handle bound to one burst function, {@code (void*, rte_mbuf**, uint16_t) -> uint16_t}. */
    public static MethodHandle bind(MemorySegment function, boolean critical) {
        return critical
            ? Linker.nativeLinker().downcallHandle(function, BURST, Linker.Option.critical(false))
            : Linker.nativeLinker().downcallHandle(function, BURST);
    }
}
