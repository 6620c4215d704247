package io.srdnic.ffm;

import static io.srdnic.ffm.Structs.field;
import static io.srdnic.ffm.Structs.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.StructLayout;

/**
 * {@code struct rte_eth_fp_ops} (rte_ethdev_core.h): the per-port table of PMD burst functions
 * and queue pointers that rte_eth_rx_burst/rte_eth_tx_burst read. Calling these function pointers
 * from Java is the shim-free alternative measured in jmh-benches.
 */
public final class rte_eth_fp_ops {
    private rte_eth_fp_ops() {
    }

    public static final StructLayout LAYOUT = Structs.struct("rte_eth_fp_ops", 128,
        field(0, ADDRESS, "rx_pkt_burst"),
        field(24, ADDRESS, "rxq_data"),
        field(64, ADDRESS, "tx_pkt_burst"),
        field(88, ADDRESS, "txq_data"));

    public static final long SIZE = LAYOUT.byteSize();
    public static final long RX_PKT_BURST_OFFSET = offset(LAYOUT, "rx_pkt_burst");
    public static final long RXQ_DATA_OFFSET = offset(LAYOUT, "rxq_data");
    public static final long TX_PKT_BURST_OFFSET = offset(LAYOUT, "tx_pkt_burst");
    public static final long TXQ_DATA_OFFSET = offset(LAYOUT, "txq_data");
}
