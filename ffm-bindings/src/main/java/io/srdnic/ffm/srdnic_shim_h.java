package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The C shim over DPDK's static-inline fast paths. One downcall per burst.
 * <p>Bindings to srdnic_shim.c, in the shape jextract generates: handles are created on first use.
 * Also the calls of srdnic_intr_thread.c, run on EAL's interrupt thread: they block, so are bound without {@code critical}.
 */
public final class srdnic_shim_h {
    private srdnic_shim_h() {
    }

    /** Burst calls never block nor call back into Java: let the JVM skip the thread-state transition. */
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    private static final class srdnic_rx_burst$ {
        static final MethodHandle HANDLE = Dpdk.downcall("srdnic_rx_burst",
                FunctionDescriptor.of(JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, ADDRESS, JAVA_SHORT), CRITICAL);
    }
    /** rte_eth_rx_burst. */
    public static short srdnic_rx_burst(short port_id, short queue_id, MemorySegment rx_pkts, short nb_pkts) {
        try {
            return (short) srdnic_rx_burst$.HANDLE.invokeExact(port_id, queue_id, rx_pkts, nb_pkts);
        } catch (Throwable t) {
            throw Dpdk.unexpected("srdnic_rx_burst", t);
        }
    }
    /** The downcall handle of srdnic_rx_burst, for callers that hold it in a static final. */
    public static MethodHandle srdnic_rx_burst$handle() {
        return srdnic_rx_burst$.HANDLE;
    }
    private static final class srdnic_tx_burst$ {
        static final MethodHandle HANDLE = Dpdk.downcall("srdnic_tx_burst",
                FunctionDescriptor.of(JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, ADDRESS, JAVA_SHORT), CRITICAL);
    }
    /** rte_eth_tx_burst. */
    public static short srdnic_tx_burst(short port_id, short queue_id, MemorySegment tx_pkts, short nb_pkts) {
        try {
            return (short) srdnic_tx_burst$.HANDLE.invokeExact(port_id, queue_id, tx_pkts, nb_pkts);
        } catch (Throwable t) {
            throw Dpdk.unexpected("srdnic_tx_burst", t);
        }
    }
    /** The downcall handle of srdnic_tx_burst, for callers that hold it in a static final. */
    public static MethodHandle srdnic_tx_burst$handle() {
        return srdnic_tx_burst$.HANDLE;
    }
    private static final class srdnic_tx_burst_or_free$ {
        static final MethodHandle HANDLE = Dpdk.downcall("srdnic_tx_burst_or_free",
                FunctionDescriptor.of(JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, ADDRESS, JAVA_SHORT), CRITICAL);
    }
    /** rte_eth_tx_burst, then frees what was not sent; returns the number sent. */
    public static short srdnic_tx_burst_or_free(short port_id, short queue_id, MemorySegment tx_pkts, short nb_pkts) {
        try {
            return (short) srdnic_tx_burst_or_free$.HANDLE.invokeExact(port_id, queue_id, tx_pkts, nb_pkts);
        } catch (Throwable t) {
            throw Dpdk.unexpected("srdnic_tx_burst_or_free", t);
        }
    }
    /** The downcall handle of srdnic_tx_burst_or_free, for callers that hold it in a static final. */
    public static MethodHandle srdnic_tx_burst_or_free$handle() {
        return srdnic_tx_burst_or_free$.HANDLE;
    }
    private static final class srdnic_pktmbuf_alloc_bulk$ {
        static final MethodHandle HANDLE = Dpdk.downcall("srdnic_pktmbuf_alloc_bulk",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), CRITICAL);
    }
    /** rte_pktmbuf_alloc_bulk: 0, or -ENOENT when the pool cannot give them all (none are taken). */
    public static int srdnic_pktmbuf_alloc_bulk(MemorySegment pool, MemorySegment mbufs, int count) {
        try {
            return (int) srdnic_pktmbuf_alloc_bulk$.HANDLE.invokeExact(pool, mbufs, count);
        } catch (Throwable t) {
            throw Dpdk.unexpected("srdnic_pktmbuf_alloc_bulk", t);
        }
    }
    /** The downcall handle of srdnic_pktmbuf_alloc_bulk, for callers that hold it in a static final. */
    public static MethodHandle srdnic_pktmbuf_alloc_bulk$handle() {
        return srdnic_pktmbuf_alloc_bulk$.HANDLE;
    }
    private static final class srdnic_pktmbuf_free_bulk$ {
        static final MethodHandle HANDLE = Dpdk.downcall("srdnic_pktmbuf_free_bulk",
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT), CRITICAL);
    }
    /** rte_pktmbuf_free_bulk (handles chains). */
    public static void srdnic_pktmbuf_free_bulk(MemorySegment mbufs, int count) {
        try {
            srdnic_pktmbuf_free_bulk$.HANDLE.invokeExact(mbufs, count);
        } catch (Throwable t) {
            throw Dpdk.unexpected("srdnic_pktmbuf_free_bulk", t);
        }
    }
    /** The downcall handle of srdnic_pktmbuf_free_bulk, for callers that hold it in a static final. */
    public static MethodHandle srdnic_pktmbuf_free_bulk$handle() {
        return srdnic_pktmbuf_free_bulk$.HANDLE;
    }
    private static final class srdnic_errno$ {
        static final MethodHandle HANDLE = Dpdk.downcall("srdnic_errno", FunctionDescriptor.of(JAVA_INT), CRITICAL);
    }
    /** rte_errno of the calling thread. */
    public static int srdnic_errno() {
        try {
            return (int) srdnic_errno$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("srdnic_errno", t);
        }
    }
    /** The downcall handle of srdnic_errno, for callers that hold it in a static final. */
    public static MethodHandle srdnic_errno$handle() {
        return srdnic_errno$.HANDLE;
    }
    private static final class srdnic_lcore_id$ {
        static final MethodHandle HANDLE = Dpdk.downcall("srdnic_lcore_id", FunctionDescriptor.of(JAVA_INT), CRITICAL);
    }
    /** rte_lcore_id() of the calling thread (LCORE_ID_ANY when unregistered). */
    public static int srdnic_lcore_id() {
        try {
            return (int) srdnic_lcore_id$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("srdnic_lcore_id", t);
        }
    }
    /** The downcall handle of srdnic_lcore_id, for callers that hold it in a static final. */
    public static MethodHandle srdnic_lcore_id$handle() {
        return srdnic_lcore_id$.HANDLE;
    }
    private static final class srdnic_extbuf_done$ {
        static final long ADDRESS = Dpdk.symbol("srdnic_extbuf_done").address();
    }
    /**
     * The address of {@code srdnic_extbuf_done(addr, opaque)}, never called from Java: the free callback
     * put in an external buffer's {@code rte_mbuf_ext_shared_info}, which marks the word at {@code opaque}
     * when the PMD frees the last mbuf pointing at the buffer.
     */
    public static long srdnic_extbuf_done$address() {
        return srdnic_extbuf_done$.ADDRESS;
    }
    private static final class srdnic_eth_dev_stop_on_intr_thread$ {
        // Not critical: it waits for EAL's interrupt thread.
        static final MethodHandle HANDLE = Dpdk.downcall("srdnic_eth_dev_stop_on_intr_thread",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_INT));
    }
    /**
     * rte_eth_dev_stop run on EAL's interrupt thread, where PMDs run their control callbacks (net_memif's
     * disconnect when the peer closes); its result, or -ETIMEDOUT if that thread did not start it within
     * {@code timeout_ms} (the port is then not stopped).
     */
    public static int srdnic_eth_dev_stop_on_intr_thread(short port_id, int timeout_ms) {
        try {
            return (int) srdnic_eth_dev_stop_on_intr_thread$.HANDLE.invokeExact(port_id, timeout_ms);
        } catch (Throwable t) {
            throw Dpdk.unexpected("srdnic_eth_dev_stop_on_intr_thread", t);
        }
    }
    /** The downcall handle of srdnic_eth_dev_stop_on_intr_thread, for callers that hold it in a static final. */
    public static MethodHandle srdnic_eth_dev_stop_on_intr_thread$handle() {
        return srdnic_eth_dev_stop_on_intr_thread$.HANDLE;
    }
    private static final class srdnic_intr_thread_barrier$ {
        // Not critical: it waits for EAL's interrupt thread.
        static final MethodHandle HANDLE = Dpdk.downcall("srdnic_intr_thread_barrier", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    /**
     * Returns once EAL's interrupt thread has done everything asked of it before the call (callbacks,
     * the wait-list rebuild a callback's unregistration asks for): 0, or -ETIMEDOUT after {@code timeout_ms}.
     */
    public static int srdnic_intr_thread_barrier(int timeout_ms) {
        try {
            return (int) srdnic_intr_thread_barrier$.HANDLE.invokeExact(timeout_ms);
        } catch (Throwable t) {
            throw Dpdk.unexpected("srdnic_intr_thread_barrier", t);
        }
    }
    /** The downcall handle of srdnic_intr_thread_barrier, for callers that hold it in a static final. */
    public static MethodHandle srdnic_intr_thread_barrier$handle() {
        return srdnic_intr_thread_barrier$.HANDLE;
    }
}
