package io.srdnic.pmd;

import io.srdnic.ffm.EthBurst;

/**
 * One receive queue of a port. Owned by one thread. Bursts call the PMD's function straight from
 * {@code rte_eth_fp_ops} (the fastest path measured, see ffm-bindings/README.md); while the port is
 * stopped a burst receives nothing.
 */
public final class RxQueue {
    private final int port;
    private final int queue;
    private final BoundBurst burst = new BoundBurst();

    RxQueue(int port, int queue) {
        this.port = port;
        this.queue = queue;
    }

    /** Called by EthPort once the port has started: the PMD's pointers are valid from now on. */
    void bind() {
        burst.bind(EthBurst.rx(port, queue));
    }

    /** Called by EthPort before the port stops. */
    void unbind() {
        burst.unbind();
    }

    /** One burst into {@code batch} (its previous contents are overwritten); returns the count. */
    public int burst(MbufBatch batch) {
        int n = burst.call(batch, batch.capacity());
        batch.count(n);
        return n;
    }

    public int queueId() {
        return queue;
    }
}
