package io.srdnic.pmd;

/**
 * What a port can do, from rte_eth_dev_info_get.
 *
 * @param maxRxPacketLength largest frame the port receives (Ethernet header and CRC included)
 * @param rssOffloads       flow types the port can hash for RSS (0: no RSS)
 */
public record DeviceInfo(String driverName, int ifIndex, int minMtu, int maxMtu, long maxRxPacketLength,
                         int maxRxQueues, int maxTxQueues, long rssOffloads, int retaSize) {

    /**
     * Largest frame the port carries, capped to what an mbuf's u16 length holds. net_memif reports a
     * nominal 1518 but chains its shared-memory buffers, so any frame up to that cap crosses it.
     */
    public int maxFrameLength() {
        long limit = "net_memif".equals(driverName) ? 0xFFFF : maxRxPacketLength;
        return (int) Math.min(limit, 0xFFFF);
    }
}
