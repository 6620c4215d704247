package io.srdnic.pmd;

/**
 * How to configure a port: queue counts and depths, RSS over IP/UDP when more than one RX queue,
 * an MTU (0 keeps the driver's), and promiscuous mode.
 */
public record PortConfig(int rxQueues, int txQueues, int rxDescriptors, int txDescriptors, int mtu, boolean promiscuous) {
    public static final PortConfig DEFAULT = new PortConfig(1, 1, 1024, 1024, 0, true);

    public PortConfig {
        if (rxQueues < 1 || txQueues < 1) {
            throw new IllegalArgumentException("a port needs at least one RX and one TX queue");
        }
        if (rxDescriptors < 1 || txDescriptors < 1 || rxDescriptors > 0xFFFF || txDescriptors > 0xFFFF) {
            throw new IllegalArgumentException("descriptor counts must be 1..65535");
        }
    }

    public PortConfig withQueues(int rx, int tx) {
        return new PortConfig(rx, tx, rxDescriptors, txDescriptors, mtu, promiscuous);
    }

    public PortConfig withMtu(int newMtu) {
        return new PortConfig(rxQueues, txQueues, rxDescriptors, txDescriptors, newMtu, promiscuous);
    }
}
