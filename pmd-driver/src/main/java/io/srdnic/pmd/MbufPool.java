package io.srdnic.pmd;

import io.srdnic.ffm.rte_mbuf;
import io.srdnic.ffm.rte_mbuf_h;
import io.srdnic.ffm.rte_mempool_h;
import io.srdnic.ffm.srdnic_shim_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A DPDK pktmbuf pool. Size it for whole frames: a frame larger than one mbuf's data room
 * arrives as a chain on PMDs that chain (memif, jumbo frames), which costs more to read.
 */
public final class MbufPool implements AutoCloseable {
    /** Per-lcore cache DPDK examples use; must be below count / 1.5. */
    public static final int DEFAULT_CACHE = 256;

    private final String name;
    private final MemorySegment pool;
    private final int dataRoom;
    private final int count;
    private boolean closed;

    private MbufPool(String name, MemorySegment pool, int dataRoom, int count) {
        this.name = name;
        this.pool = pool;
        this.dataRoom = dataRoom;
        this.count = count;
    }

    /**
     * Creates a pool of {@code count} mbufs, each able to hold a frame of {@code frameRoom} bytes
     * after the standard headroom.
     */
    public static MbufPool create(String name, int count, int frameRoom) {
        Eal eal = Eal.current();
        int dataRoom = frameRoom + rte_mbuf.RTE_PKTMBUF_HEADROOM;
        if (frameRoom <= 0 || dataRoom > 0xFFFF) {
            throw new IllegalArgumentException("frame room must be 1.." + (0xFFFF - rte_mbuf.RTE_PKTMBUF_HEADROOM)
                    + " bytes, was " + frameRoom);
        }
        if (count < 64) {
            throw new IllegalArgumentException("a pool of " + count
                    + " mbufs is too small: give at least 64 (a burst is 32, a queue holds more)");
        }
        int cache = Math.min(DEFAULT_CACHE, count / 2);
        MemorySegment pool;
        try (Arena arena = Arena.ofConfined()) {
            pool = rte_mbuf_h.rte_pktmbuf_pool_create(arena.allocateFrom(name), count, cache, (short) 0,
                (short) dataRoom, -1);
        }
        if (pool.equals(MemorySegment.NULL)) {
            throw DpdkException.fromRteErrno("rte_pktmbuf_pool_create(" + name + ", " + count + " x " + dataRoom + " B)",
                "the EAL memory (-m, EalConfig.memoryMb) is too small for this pool, or the name is taken; need about "
                    + ((long) count * (dataRoom + 192) >> 20) + " MiB");
        }
        MbufPool p = new MbufPool(name, pool, dataRoom, count);
        eal.register(p);
        return p;
    }

    /** Takes {@code n} mbufs into {@code batch} (appended); returns n, or 0 with nothing taken. */
    public int allocate(MbufBatch batch, int n) {
        int at = batch.count();
        if (n <= 0 || at + n > batch.capacity()) {
            return 0;
        }
        MemorySegment slots = at == 0 ? batch.pointers() : batch.pointers().asSlice((long) at * 8);
        if (srdnic_shim_h.srdnic_pktmbuf_alloc_bulk(pool, slots, n) != 0) {
            return 0;
        }
        batch.count(at + n);
        return n;
    }

    /** Returns every mbuf in the batch (chains included) and clears it. */
    public static void free(MbufBatch batch) {
        if (batch.count() > 0) {
            srdnic_shim_h.srdnic_pktmbuf_free_bulk(batch.pointers(), batch.count());
            batch.clear();
        }
    }

    public MemorySegment segment() {
        return pool;
    }

    public String name() {
        return name;
    }

    /** Largest frame one mbuf holds (data room less headroom). */
    public int frameRoom() {
        return dataRoom - rte_mbuf.RTE_PKTMBUF_HEADROOM;
    }

    public int size() {
        return count;
    }

    /** Mbufs in the pool now, per-lcore caches included. */
    public int available() {
        return rte_mempool_h.rte_mempool_avail_count(pool);
    }

    /** Mbufs taken and not returned: 0 after an orderly run means nothing leaked. */
    public int inUse() {
        return rte_mempool_h.rte_mempool_in_use_count(pool);
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            rte_mempool_h.rte_mempool_free(pool);
            if (Eal.isRunning()) {
                Eal.current().unregister(this);
            }
        }
    }

    @Override
    public String toString() {
        return "MbufPool[" + name + ", " + count + " x " + dataRoom + " B]";
    }
}
