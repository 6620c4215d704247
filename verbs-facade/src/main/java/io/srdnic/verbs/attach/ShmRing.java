package io.srdnic.verbs.attach;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A single-producer single-consumer ring of fixed-size records in memory shared by two processes
 * (the dataplane and one attached client), as Agrona's rings are: each side owns one index and
 * publishes it with a release store; the other reads it with an acquire load.
 * <pre>
 *   0                   64                  128
 *   +-------------------+-------------------+---------------------------------------+
 *   | producer index(8) | consumer index(8) | capacity × record (recordSize bytes)   |
 *   +-------------------+-------------------+---------------------------------------+
 * </pre>
 * The indexes count records for ever (no wrap); a record lives at {@code index & (capacity-1)}.
 * Each side keeps its own index in private memory and only writes it to the shared copy: the
 * other process may scribble anything there, so the index read from the other side is checked
 * ({@link #CORRUPT}) before it is trusted. Nothing here allocates.
 */
public final class ShmRing {
    public static final int PRODUCER_OFFSET = 0;
    public static final int CONSUMER_OFFSET = 64;
    public static final int RECORDS_OFFSET = 128;
    /** What {@link #claim} and {@link #available} return when the other side's index is impossible. */
    public static final int CORRUPT = -2;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment segment;
    private final int capacity;
    private final int mask;
    private final int recordSize;
    /** This side's own index: the producer's tail or the consumer's head. */
    private long own;

    /** A view of the ring at {@code segment} (its whole size is {@link #bytes}); {@code own} resumes this side's index. */
    public ShmRing(MemorySegment segment, int capacity, int recordSize) {
        if (Integer.bitCount(capacity) != 1 || segment.byteSize() < bytes(capacity, recordSize)) {
            throw new IllegalArgumentException("ring of " + capacity + " × " + recordSize + " does not fit "
                    + segment.byteSize() + " bytes");
        }
        this.segment = segment;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.recordSize = recordSize;
    }

    /** The bytes a ring of {@code capacity} records of {@code recordSize} takes. */
    public static long bytes(int capacity, int recordSize) {
        return RECORDS_OFFSET + (long) capacity * recordSize;
    }

    /** The smallest power of two ≥ {@code n} (at least 2). */
    public static int capacityFor(int n) {
        return Math.max(2, Integer.highestOneBit(Math.max(1, n - 1)) << 1);
    }

    public MemorySegment segment() {
        return segment;
    }

    public int capacity() {
        return capacity;
    }

    /** Producer: the offset (in {@link #segment()}) of the next record to fill, -1 when full, {@link #CORRUPT}. */
    public long claim() {
        long consumer = (long) LONG.getAcquire(segment, (long) CONSUMER_OFFSET);
        long used = own - consumer;
        if (used < 0 || used > capacity) {
            return CORRUPT;
        }
        return used == capacity ? -1 : recordOffset(own);
    }

    /** Producer: how many records may be claimed now (0..capacity), or {@link #CORRUPT}. */
    public int free() {
        long consumer = (long) LONG.getAcquire(segment, (long) CONSUMER_OFFSET);
        long used = own - consumer;
        return used < 0 || used > capacity ? CORRUPT : (int) (capacity - used);
    }

    /**
     * Producer: the offset of the next record to fill, without reading the consumer's index: for a
     * producer that read {@link #free()} once this pass and counts down the room it found (a
     * consumer index the other side changes meanwhile is not read twice, so cannot disagree).
     */
    public long next() {
        return recordOffset(own);
    }

    /** Producer: publishes the record {@link #claim()} or {@link #next()} gave. */
    public void publish() {
        own++;
        LONG.setRelease(segment, (long) PRODUCER_OFFSET, own);
    }

    /** Consumer: how many records are ready (0..capacity), or {@link #CORRUPT}. */
    public int available() {
        long producer = (long) LONG.getAcquire(segment, (long) PRODUCER_OFFSET);
        long ready = producer - own;
        return ready < 0 || ready > capacity ? CORRUPT : (int) ready;
    }

    /** Consumer: the offset of the {@code i}-th ready record (0 is the oldest). */
    public long peek(int i) {
        return recordOffset(own + i);
    }

    /** Consumer: gives {@code n} records back to the producer. */
    public void release(int n) {
        own += n;
        LONG.setRelease(segment, (long) CONSUMER_OFFSET, own);
    }

    /** Consumer: records published and not yet released, as this side counts them (its own view). */
    public long ownIndex() {
        return own;
    }

    private long recordOffset(long index) {
        return RECORDS_OFFSET + (index & mask) * recordSize;
    }
}
