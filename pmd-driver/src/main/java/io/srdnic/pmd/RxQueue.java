package io.srdnic.pmd;

import io.srdnic.ffm.srdnic_shim_h;

/** One receive queue of a started port. Owned by one thread. */
public final class RxQueue {
    private final short port;
    private final short queue;

    RxQueue(int port, int queue) {
        this.port = (short) port;
        this.queue = (short) queue;
    }

    /** One rte_eth_rx_burst into {@code batch} (its previous contents are overwritten); returns the count. */
    public int burst(MbufBatch batch) {
        int n = Short.toUnsignedInt(srdnic_shim_h.srdnic_rx_burst(port, queue, batch.pointers(), (short) batch.capacity()));
        batch.count(n);
        return n;
    }

    public int queueId() {
        return queue;
    }
}
