package io.srdnic.pmd;

/** Link state from rte_eth_link_get_nowait. */
public record LinkStatus(boolean up, int speedMbps, boolean fullDuplex, boolean autoneg) {
    @Override
    public String toString() {
        return up ? "up " + (speedMbps == 0 ? "unknown speed" : speedMbps + " Mbps")
                + (fullDuplex ? " full-duplex" : " half-duplex") : "down";
    }
}
