package io.srdnic.pmd;

import io.srdnic.ffm.EthBurst;
import java.lang.foreign.MemorySegment;

/**
 * One queue's PMD burst function and queue pointer, taken from {@code rte_eth_fp_ops} once the port
 * has started and dropped before it stops (a pointer kept across a stop would dangle).
 */
final class BoundBurst {
    private MemorySegment function;
    private long queue;

    void bind(EthBurst.Entry entry) {
        function = entry.function();
        queue = entry.queue();
    }

    void unbind() {
        function = null;
        queue = 0;
    }

    /** One burst of up to {@code n} mbufs through the batch's pointer array; 0 while unbound. */
    int call(MbufBatch batch, int n) {
        if (function == null) {
            return 0;
        }
        try {
            return Short.toUnsignedInt((short) EthBurst.BURST.invokeExact(function, queue, batch.pointersAddress(), (short) n));
        } catch (Throwable t) {
            throw new AssertionError("burst downcall failed", t);
        }
    }
}
