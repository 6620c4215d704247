package io.srdnic.pmd;

import io.srdnic.ffm.EthBurst;
import io.srdnic.ffm.srdnic_shim_h;

/**
 * One transmit queue of a port. Owned by one thread. Bursts call the PMD's function straight from
 * {@code rte_eth_fp_ops}; frames the queue does not take are freed (one more downcall, only then)
 * and counted. While the port is stopped every frame is freed and counted.
 */
public final class TxQueue {
    private final int port;
    private final int queue;
    private final BoundBurst burst = new BoundBurst();
    private long dropped;

    TxQueue(int port, int queue) {
        this.port = port;
        this.queue = queue;
    }

    void bind() {
        burst.bind(EthBurst.tx(port, queue));
    }

    void unbind() {
        burst.unbind();
    }

    /**
     * Sends the batch in one burst and clears it; what the queue does not take is freed and counted
     * in {@link #dropped()}. Returns the number sent.
     */
    public int burst(MbufBatch batch) {
        int n = batch.count();
        if (n == 0) {
            return 0;
        }
        int sent = burst.call(batch, n);
        if (sent < n) {
            srdnic_shim_h.srdnic_pktmbuf_free_bulk(batch.pointers().asSlice(sent * 8L), n - sent);
            dropped += n - sent;
        }
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
