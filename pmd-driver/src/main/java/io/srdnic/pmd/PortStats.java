package io.srdnic.pmd;

/** Port totals from rte_eth_stats_get. */
public record PortStats(long rxPackets, long txPackets, long rxBytes, long txBytes, long rxMissed,
                        long rxErrors, long txErrors, long rxNoMbuf) {
}
