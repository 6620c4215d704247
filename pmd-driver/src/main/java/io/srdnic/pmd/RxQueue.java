package io.srdnic.pmd;

import io.srdnic.ffm.EthBurst;
import java.lang.foreign.MemorySegment;

/**
 * One receive queue of a port. Owned by one thread. Bursts call the PMD's function straight from
 * {@code rte_eth_fp_ops} (the fastest path measured, see ffm-bindings/README.md); while the port is
 * stopped a burst receives nothing.
 */
public final class RxQueue {
    private final int port;
    private final int queue;
    private MemorySegment function;
    private long queuePointer;

    RxQueue(int port, int queue) {
        this.port = port;
        this.queue = queue;
    }

    /** Called by EthPort once the port has started: the PMD's pointers are valid from now on. */
    void bind() {
        EthBurst.Entry e = EthBurst.rx(port, queue);
        function = e.function();
        queuePointer = e.queue();
    }

    /** Called by EthPort before the port stops. */
    void unbind() {
        function = null;
        queuePointer = 0;
    }

    /** One burst into {@code batch} (its previous contents are overwritten); returns the count. */
    public int burst(MbufBatch batch) {
        if (function == null) {
            batch.count(0);
            return 0;
        }
        int n;
        try {
            n = Short.toUnsignedInt((short) EthBurst.BURST.invokeExact(function, queuePointer, batch.pointersAddress(), (short) batch.capacity()));
        } catch (Throwable t) {
            throw new AssertionError("rx burst downcall failed", t);
        }
        batch.count(n);
        return n;
    }

    public int queueId() {
        return queue;
    }
}
