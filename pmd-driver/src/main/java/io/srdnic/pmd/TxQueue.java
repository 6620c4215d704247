package io.srdnic.pmd;

import io.srdnic.ffm.srdnic_shim_h;

/** One transmit queue of a started port. Owned by one thread. */
public final class TxQueue {
    private final short port;
    private final short queue;
    private long dropped;

    TxQueue(int port, int queue) {
        this.port = (short) port;
        this.queue = (short) queue;
    }

    /**
     * Sends the batch in one rte_eth_tx_burst and clears it; what the queue does not take is freed
     * in the same downcall and counted in {@link #dropped()}. Returns the number sent.
     */
    public int burst(MbufBatch batch) {
        int n = batch.count();
        if (n == 0) {
            return 0;
        }
        int sent = Short.toUnsignedInt(srdnic_shim_h.srdnic_tx_burst_or_free(port, queue, batch.pointers(), (short) n));
        dropped += n - sent;
        batch.clear();
        return sent;
    }

    /** Frames handed to {@link #burst} that the PMD did not take (freed, never sent). */
    public long dropped() {
        return dropped;
    }

    public int queueId() {
        return queue;
    }
}
