package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The PMD burst functions reached through {@code rte_eth_fp_ops[port]}, the table the inline
 * {@code rte_eth_rx_burst}/{@code rte_eth_tx_burst} read — called from Java without the shim. The
 * fastest path measured (see this module's README): one static handle taking the function pointer
 * first, and the queue and mbuf-array pointers as {@code long}s (on LP64 ABIs a pointer and a long
 * travel in the same register), which skips FFM's per-argument segment checks.
 * <p>
 * What it skips, compared with the inline wrappers: RX/TX callbacks (rte_eth_add_rx_callback, none
 * installed by srdnic) and fast-path trace points (compiled out in Debian's build). The pointers are
 * valid only while the port is started: read them after rte_eth_dev_start, drop them before stop.
 */
@SuppressWarnings("restricted")
public final class EthBurst {
    private EthBurst() {
    }

    /** {@code uint16_t (*)(void *queue, struct rte_mbuf **pkts, uint16_t n)}, pointers as longs. */
    public static final FunctionDescriptor BURST_LONG = FunctionDescriptor.of(JAVA_SHORT, JAVA_LONG, JAVA_LONG, JAVA_SHORT);

    /** {@code (MemorySegment function, long queue, long pkts, short n) -> short}; never blocks nor calls back: critical. */
    public static final MethodHandle BURST = Linker.nativeLinker().downcallHandle(BURST_LONG, Linker.Option.critical(false));

    /** One queue's burst function and queue pointer, read from {@code rte_eth_fp_ops}. */
    public record Entry(MemorySegment function, long queue) {
    }

    public static Entry rx(int port, int queue) {
        return entry(port, queue, rte_eth_fp_ops.RX_PKT_BURST_OFFSET, rte_eth_fp_ops.RXQ_DATA_OFFSET);
    }

    public static Entry tx(int port, int queue) {
        return entry(port, queue, rte_eth_fp_ops.TX_PKT_BURST_OFFSET, rte_eth_fp_ops.TXQ_DATA_OFFSET);
    }

    private static Entry entry(int port, int queue, long functionOffset, long dataOffset) {
        if (port < 0 || port >= rte_ethdev_h.RTE_MAX_ETHPORTS || queue < 0) {
            throw new IllegalArgumentException("port " + port + " queue " + queue);
        }
        MemorySegment ops = rte_ethdev_h.rte_eth_fp_ops$segment().asSlice(port * rte_eth_fp_ops.SIZE, rte_eth_fp_ops.SIZE);
        MemorySegment data = ops.get(ADDRESS, dataOffset).reinterpret(ADDRESS.byteSize() * (queue + 1L));
        long q = data.getAtIndex(ADDRESS, queue).address();
        if (q == 0) {
            throw new IllegalStateException("port " + port + " queue " + queue + " has no queue in rte_eth_fp_ops: start the port first");
        }
        return new Entry(ops.get(ADDRESS, functionOffset), q);
    }
}
