package io.srdnic.pmd;

import java.util.List;

/** Port totals from rte_eth_stats_get. */
public record PortStats(long rxPackets, long txPackets, long rxBytes, long txBytes, long rxMissed,
                        long rxErrors, long txErrors, long rxNoMbuf) {

    /** The fields' names as counters (port_rx_packets, ...), in the order {@link EthPort#readStats} stores them. */
    public static final List<String> NAMES = List.of("port_rx_packets", "port_tx_packets", "port_rx_bytes", "port_tx_bytes",
        "port_rx_missed", "port_rx_errors", "port_tx_errors", "port_rx_nombuf");

    /** From values in {@link #NAMES} order. */
    public static PortStats of(long[] v) {
        return new PortStats(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }
}
