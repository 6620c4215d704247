package io.srdnic.pmd;

/**
 * What a port can do, from rte_eth_dev_info_get.
 *
 * @param maxRxPacketLength largest frame the port receives (Ethernet header and CRC included)
 * @param rssOffloads       flow types the port can hash for RSS (0: no RSS)
 */
public record DeviceInfo(String driverName, int ifIndex, int minMtu, int maxMtu, long maxRxPacketLength,
                         int maxRxQueues, int maxTxQueues, long rssOffloads, int retaSize) {

    /** Largest frame one receive can carry without a chain, capped to what an mbuf's u16 length can hold. */
    public int maxFrameLength() {
        return (int) Math.min(maxRxPacketLength, 0xFFFF);
    }
}
