package io.srdnic.ffm;

import static io.srdnic.ffm.Structs.field;
import static io.srdnic.ffm.Structs.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.StructLayout;

/** {@code struct rte_eth_dev_info} (rte_ethdev.h): what a port can do. */
public final class rte_eth_dev_info {
    private rte_eth_dev_info() {
    }

    public static final StructLayout LAYOUT = Structs.struct("rte_eth_dev_info", 376,
        field(8, ADDRESS, "driver_name"),
        field(16, JAVA_INT, "if_index"),
        field(20, JAVA_SHORT, "min_mtu"),
        field(22, JAVA_SHORT, "max_mtu"),
        field(32, JAVA_INT, "min_rx_bufsize"),
        field(36, JAVA_INT, "max_rx_pktlen"),
        field(44, JAVA_SHORT, "max_rx_queues"),
        field(46, JAVA_SHORT, "max_tx_queues"),
        field(72, JAVA_LONG, "rx_offload_capa"),
        field(80, JAVA_LONG, "tx_offload_capa"),
        field(104, JAVA_SHORT, "reta_size"),
        field(106, JAVA_SHORT, "hash_key_size"),
        field(112, JAVA_LONG, "flow_type_rss_offloads"),
        field(288, JAVA_SHORT, "nb_rx_queues"),
        field(290, JAVA_SHORT, "nb_tx_queues"));

    public static final long SIZE = LAYOUT.byteSize();
    public static final long DRIVER_NAME_OFFSET = offset(LAYOUT, "driver_name");
    public static final long IF_INDEX_OFFSET = offset(LAYOUT, "if_index");
    public static final long MIN_MTU_OFFSET = offset(LAYOUT, "min_mtu");
    public static final long MAX_MTU_OFFSET = offset(LAYOUT, "max_mtu");
    public static final long MIN_RX_BUFSIZE_OFFSET = offset(LAYOUT, "min_rx_bufsize");
    public static final long MAX_RX_PKTLEN_OFFSET = offset(LAYOUT, "max_rx_pktlen");
    public static final long MAX_RX_QUEUES_OFFSET = offset(LAYOUT, "max_rx_queues");
    public static final long MAX_TX_QUEUES_OFFSET = offset(LAYOUT, "max_tx_queues");
    public static final long RX_OFFLOAD_CAPA_OFFSET = offset(LAYOUT, "rx_offload_capa");
    public static final long TX_OFFLOAD_CAPA_OFFSET = offset(LAYOUT, "tx_offload_capa");
    public static final long RETA_SIZE_OFFSET = offset(LAYOUT, "reta_size");
    public static final long HASH_KEY_SIZE_OFFSET = offset(LAYOUT, "hash_key_size");
    public static final long FLOW_TYPE_RSS_OFFLOADS_OFFSET = offset(LAYOUT, "flow_type_rss_offloads");
    public static final long NB_RX_QUEUES_OFFSET = offset(LAYOUT, "nb_rx_queues");
    public static final long NB_TX_QUEUES_OFFSET = offset(LAYOUT, "nb_tx_queues");
}
