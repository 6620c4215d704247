package io.srdnic.pmd.lcore;

import io.srdnic.pmd.MbufBatch;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A lock-free single-producer single-consumer ring of mbuf addresses: how one lcore hands frames
 * to another. One thread offers, one thread drains; each keeps its own index privately and
 * publishes it with a release store, and the producer re-reads the consumer's index only when its
 * cached copy says the ring is full (so the two cores do not bounce one cache line per frame).
 * A full ring refuses rather than blocks: the caller frees the mbuf and counts the drop. The
 * slots are a plain {@code long[]}, written before the release of the producer index that
 * covers them and read after the acquire of it. No allocation after construction.
 */
public final class HandoffRing {
    private static final VarHandle PRODUCED;
    private static final VarHandle CONSUMED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PRODUCED = l.findVarHandle(HandoffRing.class, "produced", long.class);
            CONSUMED = l.findVarHandle(HandoffRing.class, "consumed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] slots;
    private final int mask;

    // Padding keeps the producer's and the consumer's indices on cache lines of their own.
    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;
    /** Frames offered so far: written by the producer only. */
    private volatile long produced;
    /** The producer's last look at {@link #consumed}. */
    private long consumedSeen;
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;
    /** Frames drained so far: written by the consumer only. */
    private volatile long consumed;
    /** Frames the consumer's last drain found waiting (its own field). */
    private int lastFound;
    @SuppressWarnings("unused")
    private long p21, p22, p23, p24, p25, p26, p27;

    /** A ring of {@code capacity} slots, a power of two. */
    public HandoffRing(int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("a hand-off ring's capacity is a power of two of at least 2, was " + capacity);
        }
        this.slots = new long[capacity];
        this.mask = capacity - 1;
    }

    public int capacity() {
        return slots.length;
    }

    /** Producer: appends {@code mbuf}; false, with nothing taken, when the ring is full. */
    public boolean offer(long mbuf) {
        long p = (long) PRODUCED.getOpaque(this);
        if (p - consumedSeen == slots.length) {
            consumedSeen = (long) CONSUMED.getAcquire(this);
            if (p - consumedSeen == slots.length) {
                return false;
            }
        }
        slots[(int) p & mask] = mbuf;
        PRODUCED.setRelease(this, p + 1);
        return true;
    }

    /** Consumer: moves as many frames as {@code batch} has room for into it (appending); returns how many. */
    public int drainTo(MbufBatch batch) {
        long c = (long) CONSUMED.getOpaque(this);
        long available = (long) PRODUCED.getAcquire(this) - c;
        lastFound = (int) available;
        int n = (int) Math.min(available, batch.capacity() - batch.count());
        for (int i = 0; i < n; i++) {
            batch.add(slots[(int) (c + i) & mask]);
        }
        if (n > 0) {
            CONSUMED.setRelease(this, c + n);
        }
        return n;
    }

    /** Consumer: how many frames waited when it last drained (the ring's occupancy, before taking). */
    public int lastFound() {
        return lastFound;
    }

    /** Frames waiting, as seen from any thread (exact on the producer's or consumer's own thread when the other is idle). */
    public int size() {
        long c = (long) CONSUMED.getAcquire(this);
        return (int) ((long) PRODUCED.getAcquire(this) - c);
    }
}
