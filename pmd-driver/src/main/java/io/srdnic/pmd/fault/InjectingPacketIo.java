package io.srdnic.pmd.fault;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A {@link PacketIo} decorator that adds frames of the caller's making to what the port receives:
 * forged or malformed frames entering a receiver through its real port's receive path, as an
 * attacker on the wire would put them there (the adversary command, fuzzers).
 * <p>
 * {@link #inject} copies a frame into a bounded queue, or refuses it (counted) when the queue is
 * full or the frame is longer than the port's frames. {@link #receive} returns what the inner
 * port received, then as many queued frames as the batch has room for, each copied into an mbuf
 * from the inner port's pool, so the receiver frees them like any other. When the pool has no
 * mbufs to give, the frames wait for the next burst.
 * <p>
 * One thread receives (the port's owner); any thread may inject — injections are serialized
 * among themselves and hand frames to the receiving thread through a single-producer ring, so
 * receiving takes no lock.
 */
public final class InjectingPacketIo extends ForwardingPacketIo {
    /** Queued frames when the caller does not say. */
    public static final int DEFAULT_CAPACITY = 1024;

    private final int capacity;
    private final int slotSize;
    private final MemorySegment slots;
    private final int[] lengths;
    /** Next slot to receive; written by the receiving thread only. */
    private volatile long head;
    /** Next slot to fill; written under this object's lock. Its volatile store publishes the slot. */
    private volatile long tail;
    private volatile long injected;
    private volatile long refused;

    public InjectingPacketIo(PacketIo inner) {
        this(inner, DEFAULT_CAPACITY);
    }

    /** Queues at most {@code capacity} frames, each at most the inner port's {@link #maxFrameLength()}. */
    public InjectingPacketIo(PacketIo inner, int capacity) {
        super(inner);
        if (capacity < 1 || capacity > 1 << 20) {
            throw new IllegalArgumentException("injection queue capacity must be 1.." + (1 << 20) + ", was " + capacity);
        }
        this.capacity = capacity;
        this.slotSize = inner.maxFrameLength();
        this.slots = Arena.ofAuto().allocate((long) capacity * slotSize, 64);
        this.lengths = new int[capacity];
    }

    /**
     * Queues the first {@code length} bytes of {@code frame} for the next {@link #receive}; false
     * (and counted in {@link #refused()}) when the queue is full or the frame does not fit an mbuf of
     * this port. The frame is copied: the caller may reuse its memory at once.
     */
    public synchronized boolean inject(MemorySegment frame, int length) {
        Objects.requireNonNull(frame, "frame");
        long t = tail;
        if (length < 1 || length > slotSize || length > frame.byteSize() || t - head >= capacity) {
            refused++;
            return false;
        }
        int slot = (int) (t % capacity);
        MemorySegment.copy(frame, 0, slots, (long) slot * slotSize, length);
        lengths[slot] = length;
        tail = t + 1;
        return true;
    }

    @Override
    public int receive(MbufBatch batch) {
        int n = inner.receive(batch);
        long h = head;
        int k = (int) Math.min(tail - h, batch.capacity() - n);
        if (k <= 0 || inner.allocate(batch, k) != k) {
            return n;
        }
        for (int i = 0; i < k; i++) {
            int slot = (int) ((h + i) % capacity);
            int length = lengths[slot];
            Mbuf m = batch.get(n + i);
            m.copyFrom(slots, (long) slot * slotSize, 0, length);
            m.frameLength(length);
        }
        head = h + k;
        injected += k;
        return n + k;
    }

    /** Frames handed to the receiver so far. */
    public long injected() {
        return injected;
    }

    /** Frames {@link #inject} turned away: the queue was full, or the frame was empty or too long. */
    public long refused() {
        return refused;
    }
}
