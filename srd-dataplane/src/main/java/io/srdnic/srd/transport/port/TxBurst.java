package io.srdnic.srd.transport.port;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.counters.SrdCounters;
import java.lang.foreign.Arena;

/**
 * Where a transport's outgoing frames are made and leave: mbufs come from the pool a burst at a
 * time (one allocation downcall per burst, not per frame), and built frames go out together in one
 * transmit downcall when the burst is full or the duty cycle flushes it.
 */
public final class TxBurst implements AutoCloseable {
    private final PacketIo io;
    private final SrdCounters counters;
    private final MbufBatch batch;
    private final MbufBatch spare;
    /** The one view the transport writes frames through (reused: nothing allocated per frame). */
    public final Mbuf view = new Mbuf();

    public TxBurst(PacketIo io, Arena arena, int burst, SrdCounters counters) {
        this.io = io;
        this.counters = counters;
        this.batch = new MbufBatch(arena, burst);
        this.spare = new MbufBatch(arena, burst);
    }

    /** An mbuf for the next frame, or 0 when the pool has none (counted as {@code no_mbuf}). */
    public long take() {
        if (spare.isEmpty() && io.allocate(spare, spare.capacity()) == 0 && io.allocate(spare, 1) == 0) {
            counters.noMbuf++;
            return 0;
        }
        return spare.removeAt(spare.count() - 1);
    }

    /** Returns an mbuf taken but not sent. */
    public void giveBack(long address) {
        spare.add(address);
    }

    /** Queues a built frame; a full burst leaves at once. */
    public void emit(long address) {
        batch.add(address);
        if (batch.isFull()) {
            flush();
        }
    }

    /** Sends what is queued (one downcall). */
    public void flush() {
        if (!batch.isEmpty()) {
            io.transmit(batch);
        }
    }

    public boolean isEmpty() {
        return batch.isEmpty();
    }

    /** Sends what is queued and returns the spare mbufs to the pool. */
    @Override
    public void close() {
        flush();
        io.free(spare);
    }
}
