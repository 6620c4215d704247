package io.srdnic.pmd;

/**
 * What a port can do, from rte_eth_dev_info_get.
 *
 * @param maxRxPacketLength largest frame the port receives (Ethernet header and CRC included)
 * @param rssOffloads       flow types the port can hash for RSS (0: no RSS)
 * @param rxOffloads        rx_offload_capa: what the port can do for received frames (RTE_ETH_RX_OFFLOAD_*)
 * @param txOffloads        tx_offload_capa: what it can do for frames sent (RTE_ETH_TX_OFFLOAD_*)
 */
public record DeviceInfo(String driverName, int ifIndex, int minMtu, int maxMtu, long maxRxPacketLength,
                         int maxRxQueues, int maxTxQueues, long rssOffloads, int retaSize, long rxOffloads, long txOffloads) {

    /**
     * Largest frame the port carries, capped to what an mbuf's u16 length holds. net_memif reports a
     * nominal 1518 but chains its shared-memory buffers, so any frame up to that cap crosses it.
     */
    public int maxFrameLength() {
        long limit = "net_memif".equals(driverName) ? 0xFFFF : maxRxPacketLength;
        return (int) Math.min(limit, 0xFFFF);
    }
}
