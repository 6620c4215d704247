package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The net_ring PMD's constructor of an ethdev over existing rings.
 * <p>Bindings to rte_eth_ring.h, in the shape jextract generates: handles are created on first use.
 */
public final class rte_eth_ring_h {
    private rte_eth_ring_h() {
    }

    private static final class rte_eth_from_rings$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_from_rings",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    }
    /** Creates a port whose queues are the given rings; returns the port id or -1. */
    public static int rte_eth_from_rings(MemorySegment name, MemorySegment rx_queues, int nb_rx_queues, MemorySegment tx_queues,
            int nb_tx_queues, int numa_node) {
        try {
            return (int) rte_eth_from_rings$.HANDLE.invokeExact(name, rx_queues, nb_rx_queues, tx_queues, nb_tx_queues, numa_node);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_from_rings", t);
        }
    }
    /** The downcall handle of rte_eth_from_rings, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_from_rings$handle() {
        return rte_eth_from_rings$.HANDLE;
    }
}
