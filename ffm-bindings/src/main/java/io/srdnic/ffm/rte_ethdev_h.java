package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Ethernet devices: discovery, configuration, queues, start/stop, link, statistics.
 * <p>Bindings to rte_ethdev.h, rte_ethdev_core.h, in the shape jextract generates: handles are created on first use.
 */
public final class rte_ethdev_h {
    private rte_ethdev_h() {
    }

    public static final int RTE_MAX_ETHPORTS = 32;
    public static final int RTE_ETH_NAME_MAX_LEN = 64;
    public static final int RTE_ETH_MQ_RX_NONE = 0;
    public static final int RTE_ETH_MQ_RX_RSS = 1;
    public static final long RTE_ETH_RSS_IP = 0xa38cL;
    public static final long RTE_ETH_RSS_UDP = 0x20820L;
    /** Checksum offloads a port may advertise (tx/rx_offload_capa) and be configured with (txmode/rxmode.offloads). */
    public static final long RTE_ETH_TX_OFFLOAD_UDP_CKSUM = 1L << 2;
    public static final long RTE_ETH_RX_OFFLOAD_UDP_CKSUM = 1L << 2;
    public static final int RTE_ETHER_ADDR_LEN = 6;

    /** {@code rte_eth_fp_ops[RTE_MAX_ETHPORTS]}: the PMD burst table, read by the fp-ops burst path. */
    public static MemorySegment rte_eth_fp_ops$segment() {
        return Dpdk.symbol("rte_eth_fp_ops").reinterpret(rte_eth_fp_ops.SIZE * RTE_MAX_ETHPORTS);
    }

    private static final class rte_eth_dev_count_avail$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_count_avail", FunctionDescriptor.of(JAVA_SHORT));
    }
    /** Number of usable ports. */
    public static short rte_eth_dev_count_avail() {
        try {
            return (short) rte_eth_dev_count_avail$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_count_avail", t);
        }
    }
    /** The downcall handle of rte_eth_dev_count_avail, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_count_avail$handle() {
        return rte_eth_dev_count_avail$.HANDLE;
    }
    private static final class rte_eth_dev_is_valid_port$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_is_valid_port", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
    }
    /** 1 when the port id is attached. */
    public static int rte_eth_dev_is_valid_port(short port_id) {
        try {
            return (int) rte_eth_dev_is_valid_port$.HANDLE.invokeExact(port_id);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_is_valid_port", t);
        }
    }
    /** The downcall handle of rte_eth_dev_is_valid_port, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_is_valid_port$handle() {
        return rte_eth_dev_is_valid_port$.HANDLE;
    }
    private static final class rte_eth_dev_get_port_by_name$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_get_port_by_name", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }
    /** Looks a port up by device name. */
    public static int rte_eth_dev_get_port_by_name(MemorySegment name, MemorySegment port_id) {
        try {
            return (int) rte_eth_dev_get_port_by_name$.HANDLE.invokeExact(name, port_id);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_get_port_by_name", t);
        }
    }
    /** The downcall handle of rte_eth_dev_get_port_by_name, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_get_port_by_name$handle() {
        return rte_eth_dev_get_port_by_name$.HANDLE;
    }
    private static final class rte_eth_dev_get_name_by_port$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_get_name_by_port",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
    }
    /** The device name of a port (RTE_ETH_NAME_MAX_LEN bytes). */
    public static int rte_eth_dev_get_name_by_port(short port_id, MemorySegment name) {
        try {
            return (int) rte_eth_dev_get_name_by_port$.HANDLE.invokeExact(port_id, name);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_get_name_by_port", t);
        }
    }
    /** The downcall handle of rte_eth_dev_get_name_by_port, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_get_name_by_port$handle() {
        return rte_eth_dev_get_name_by_port$.HANDLE;
    }
    private static final class rte_eth_dev_info_get$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_info_get", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
    }
    /** Fills struct rte_eth_dev_info. */
    public static int rte_eth_dev_info_get(short port_id, MemorySegment dev_info) {
        try {
            return (int) rte_eth_dev_info_get$.HANDLE.invokeExact(port_id, dev_info);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_info_get", t);
        }
    }
    /** The downcall handle of rte_eth_dev_info_get, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_info_get$handle() {
        return rte_eth_dev_info_get$.HANDLE;
    }
    private static final class rte_eth_dev_configure$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_configure",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, ADDRESS));
    }
    /** Configures queue counts, modes and RSS. */
    public static int rte_eth_dev_configure(short port_id, short nb_rx_queue, short nb_tx_queue, MemorySegment eth_conf) {
        try {
            return (int) rte_eth_dev_configure$.HANDLE.invokeExact(port_id, nb_rx_queue, nb_tx_queue, eth_conf);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_configure", t);
        }
    }
    /** The downcall handle of rte_eth_dev_configure, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_configure$handle() {
        return rte_eth_dev_configure$.HANDLE;
    }
    private static final class rte_eth_dev_adjust_nb_rx_tx_desc$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_adjust_nb_rx_tx_desc",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS, ADDRESS));
    }
    /** Clamps descriptor counts to what the device allows. */
    public static int rte_eth_dev_adjust_nb_rx_tx_desc(short port_id, MemorySegment nb_rx_desc, MemorySegment nb_tx_desc) {
        try {
            return (int) rte_eth_dev_adjust_nb_rx_tx_desc$.HANDLE.invokeExact(port_id, nb_rx_desc, nb_tx_desc);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_adjust_nb_rx_tx_desc", t);
        }
    }
    /** The downcall handle of rte_eth_dev_adjust_nb_rx_tx_desc, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_adjust_nb_rx_tx_desc$handle() {
        return rte_eth_dev_adjust_nb_rx_tx_desc$.HANDLE;
    }
    private static final class rte_eth_rx_queue_setup$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_rx_queue_setup",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, JAVA_INT, ADDRESS, ADDRESS));
    }
    /** Sets up a receive queue fed from a mempool. */
    public static int rte_eth_rx_queue_setup(short port_id, short rx_queue_id, short nb_rx_desc, int socket_id, MemorySegment rx_conf,
            MemorySegment mb_pool) {
        try {
            return (int) rte_eth_rx_queue_setup$.HANDLE.invokeExact(port_id, rx_queue_id, nb_rx_desc, socket_id, rx_conf, mb_pool);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_rx_queue_setup", t);
        }
    }
    /** The downcall handle of rte_eth_rx_queue_setup, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_rx_queue_setup$handle() {
        return rte_eth_rx_queue_setup$.HANDLE;
    }
    private static final class rte_eth_tx_queue_setup$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_tx_queue_setup",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, JAVA_INT, ADDRESS));
    }
    /** Sets up a transmit queue. */
    public static int rte_eth_tx_queue_setup(short port_id, short tx_queue_id, short nb_tx_desc, int socket_id, MemorySegment tx_conf) {
        try {
            return (int) rte_eth_tx_queue_setup$.HANDLE.invokeExact(port_id, tx_queue_id, nb_tx_desc, socket_id, tx_conf);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_tx_queue_setup", t);
        }
    }
    /** The downcall handle of rte_eth_tx_queue_setup, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_tx_queue_setup$handle() {
        return rte_eth_tx_queue_setup$.HANDLE;
    }
    private static final class rte_eth_dev_start$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_start", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
    }
    /** Starts a configured port. */
    public static int rte_eth_dev_start(short port_id) {
        try {
            return (int) rte_eth_dev_start$.HANDLE.invokeExact(port_id);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_start", t);
        }
    }
    /** The downcall handle of rte_eth_dev_start, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_start$handle() {
        return rte_eth_dev_start$.HANDLE;
    }
    private static final class rte_eth_dev_stop$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_stop", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
    }
    /** Stops a port. */
    public static int rte_eth_dev_stop(short port_id) {
        try {
            return (int) rte_eth_dev_stop$.HANDLE.invokeExact(port_id);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_stop", t);
        }
    }
    /** The downcall handle of rte_eth_dev_stop, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_stop$handle() {
        return rte_eth_dev_stop$.HANDLE;
    }
    private static final class rte_eth_dev_close$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_close", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
    }
    /** Closes a stopped port and releases it. */
    public static int rte_eth_dev_close(short port_id) {
        try {
            return (int) rte_eth_dev_close$.HANDLE.invokeExact(port_id);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_close", t);
        }
    }
    /** The downcall handle of rte_eth_dev_close, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_close$handle() {
        return rte_eth_dev_close$.HANDLE;
    }
    private static final class rte_eth_dev_socket_id$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_socket_id", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
    }
    /** NUMA socket of a port, or -1. */
    public static int rte_eth_dev_socket_id(short port_id) {
        try {
            return (int) rte_eth_dev_socket_id$.HANDLE.invokeExact(port_id);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_socket_id", t);
        }
    }
    /** The downcall handle of rte_eth_dev_socket_id, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_socket_id$handle() {
        return rte_eth_dev_socket_id$.HANDLE;
    }
    private static final class rte_eth_macaddr_get$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_macaddr_get", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
    }
    /** The port's MAC address (6 bytes). */
    public static int rte_eth_macaddr_get(short port_id, MemorySegment mac_addr) {
        try {
            return (int) rte_eth_macaddr_get$.HANDLE.invokeExact(port_id, mac_addr);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_macaddr_get", t);
        }
    }
    /** The downcall handle of rte_eth_macaddr_get, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_macaddr_get$handle() {
        return rte_eth_macaddr_get$.HANDLE;
    }
    private static final class rte_eth_promiscuous_enable$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_promiscuous_enable", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
    }
    /** Receives frames for any destination MAC. */
    public static int rte_eth_promiscuous_enable(short port_id) {
        try {
            return (int) rte_eth_promiscuous_enable$.HANDLE.invokeExact(port_id);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_promiscuous_enable", t);
        }
    }
    /** The downcall handle of rte_eth_promiscuous_enable, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_promiscuous_enable$handle() {
        return rte_eth_promiscuous_enable$.HANDLE;
    }
    private static final class rte_eth_dev_set_mtu$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_set_mtu", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_SHORT));
    }
    /** Sets the MTU (L3 payload bytes). */
    public static int rte_eth_dev_set_mtu(short port_id, short mtu) {
        try {
            return (int) rte_eth_dev_set_mtu$.HANDLE.invokeExact(port_id, mtu);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_set_mtu", t);
        }
    }
    /** The downcall handle of rte_eth_dev_set_mtu, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_set_mtu$handle() {
        return rte_eth_dev_set_mtu$.HANDLE;
    }
    private static final class rte_eth_dev_get_mtu$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_dev_get_mtu", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
    }
    /** Reads the MTU. */
    public static int rte_eth_dev_get_mtu(short port_id, MemorySegment mtu) {
        try {
            return (int) rte_eth_dev_get_mtu$.HANDLE.invokeExact(port_id, mtu);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_dev_get_mtu", t);
        }
    }
    /** The downcall handle of rte_eth_dev_get_mtu, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_dev_get_mtu$handle() {
        return rte_eth_dev_get_mtu$.HANDLE;
    }
    private static final class rte_eth_link_get_nowait$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_link_get_nowait", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
    }
    /** Reads link state without waiting. */
    public static int rte_eth_link_get_nowait(short port_id, MemorySegment link) {
        try {
            return (int) rte_eth_link_get_nowait$.HANDLE.invokeExact(port_id, link);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_link_get_nowait", t);
        }
    }
    /** The downcall handle of rte_eth_link_get_nowait, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_link_get_nowait$handle() {
        return rte_eth_link_get_nowait$.HANDLE;
    }
    private static final class rte_eth_stats_get$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_stats_get", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
    }
    /** Reads basic port statistics. */
    public static int rte_eth_stats_get(short port_id, MemorySegment stats) {
        try {
            return (int) rte_eth_stats_get$.HANDLE.invokeExact(port_id, stats);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_stats_get", t);
        }
    }
    /** The downcall handle of rte_eth_stats_get, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_stats_get$handle() {
        return rte_eth_stats_get$.HANDLE;
    }
    private static final class rte_eth_stats_reset$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_stats_reset", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
    }
    /** Resets basic port statistics. */
    public static int rte_eth_stats_reset(short port_id) {
        try {
            return (int) rte_eth_stats_reset$.HANDLE.invokeExact(port_id);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_stats_reset", t);
        }
    }
    /** The downcall handle of rte_eth_stats_reset, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_stats_reset$handle() {
        return rte_eth_stats_reset$.HANDLE;
    }
    private static final class rte_eth_xstats_get_names$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_xstats_get_names",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS, JAVA_INT));
    }
    /** Extended statistic names; with NULL, returns the count. */
    public static int rte_eth_xstats_get_names(short port_id, MemorySegment xstats_names, int size) {
        try {
            return (int) rte_eth_xstats_get_names$.HANDLE.invokeExact(port_id, xstats_names, size);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_xstats_get_names", t);
        }
    }
    /** The downcall handle of rte_eth_xstats_get_names, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_xstats_get_names$handle() {
        return rte_eth_xstats_get_names$.HANDLE;
    }
    private static final class rte_eth_xstats_get$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eth_xstats_get",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS, JAVA_INT));
    }
    /** Extended statistic values. */
    public static int rte_eth_xstats_get(short port_id, MemorySegment xstats, int n) {
        try {
            return (int) rte_eth_xstats_get$.HANDLE.invokeExact(port_id, xstats, n);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eth_xstats_get", t);
        }
    }
    /** The downcall handle of rte_eth_xstats_get, for callers that hold it in a static final. */
    public static MethodHandle rte_eth_xstats_get$handle() {
        return rte_eth_xstats_get$.HANDLE;
    }
}
