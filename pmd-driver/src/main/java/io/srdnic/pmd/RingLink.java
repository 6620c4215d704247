package io.srdnic.pmd;

import io.srdnic.ffm.rte_eth_ring_h;
import io.srdnic.ffm.rte_ring_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two net_ring ports wired back to back in one process: what A sends, B receives, and the reverse.
 * A {@code --vdev net_ring0} loops to itself (its RX and TX are one ring); a link needs two rings
 * crossed over, which only {@code rte_eth_from_rings} can build.
 */
public final class RingLink implements AutoCloseable {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final MemorySegment aToB;
    private final MemorySegment bToA;
    private final EthPort a;
    private final EthPort b;
    private boolean closed;

    private RingLink(MemorySegment aToB, MemorySegment bToA, EthPort a, EthPort b) {
        this.aToB = aToB;
        this.bToA = bToA;
        this.a = a;
        this.b = b;
    }

    /** Creates the rings and both ports; each ring holds {@code ringSize} frames (a power of two). */
    public static RingLink create(int ringSize) {
        if (Integer.bitCount(ringSize) != 1) {
            throw new IllegalArgumentException("ring size must be a power of two, was " + ringSize);
        }
        Eal eal = Eal.current();
        int n = SEQUENCE.getAndIncrement();
        int flags = rte_ring_h.RING_F_SP_ENQ | rte_ring_h.RING_F_SC_DEQ;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment aToB = ring(arena, "srl" + n + "ab", ringSize, flags);
            MemorySegment bToA = ring(arena, "srl" + n + "ba", ringSize, flags);
            EthPort a = port(arena, "ring_link" + n + "_a", bToA, aToB);
            EthPort b = port(arena, "ring_link" + n + "_b", aToB, bToA);
            RingLink link = new RingLink(aToB, bToA, a, b);
            eal.register(link);
            return link;
        }
    }

    private static MemorySegment ring(Arena arena, String name, int size, int flags) {
        // rte_ring_create's count must be a power of two and holds count - 1 entries.
        MemorySegment r = rte_ring_h.rte_ring_create(arena.allocateFrom(name), size, -1, flags);
        if (r.equals(MemorySegment.NULL)) {
            throw DpdkException.fromRteErrno("rte_ring_create(" + name + ", " + size + ")",
                    "raise the EAL memory (-m) or use a smaller ring");
        }
        return r;
    }

    private static EthPort port(Arena arena, String name, MemorySegment rx, MemorySegment tx) {
        MemorySegment rxs = arena.allocateFrom(ValueLayout.ADDRESS, rx);
        MemorySegment txs = arena.allocateFrom(ValueLayout.ADDRESS, tx);
        int id = rte_eth_ring_h.rte_eth_from_rings(arena.allocateFrom(name), rxs, 1, txs, 1, 0);
        if (id < 0) {
            throw DpdkException.fromRteErrno("rte_eth_from_rings(" + name + ")", "is the net_ring PMD installed (librte-net-ring23)?");
        }
        return EthPort.of(id);
    }

    public EthPort a() {
        return a;
    }

    public EthPort b() {
        return b;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        a.close();
        b.close();
        rte_ring_h.rte_ring_free(aToB);
        rte_ring_h.rte_ring_free(bToA);
        if (Eal.isRunning()) {
            Eal.current().unregister(this);
        }
    }
}
