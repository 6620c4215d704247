package io.srdnic.pmd.fault;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;
import java.util.SplittableRandom;

/**
 * A {@link PacketIo} decorator that duplicates and reorders a seeded fraction of the frames it is
 * given to send, on real ports (no netem here): a duplicated frame is copied into a fresh mbuf of
 * the port's pool and sent right after its original; a delayed frame is held back and sent after
 * the frames of the next burst. With {@link FaultInjectingPacketIo} inside it, a link that loses,
 * duplicates and reorders. Only the frame's bytes are copied (no transmit offload requests).
 * One thread transmits (the port's owner).
 */
public final class DisorderingPacketIo extends ForwardingPacketIo {
    private static final int HELD = 64;
    private final double duplicate;
    private final double delay;
    private final SplittableRandom random;
    private final Arena arena = Arena.ofConfined();
    private final MbufBatch out;
    private final MbufBatch held;
    private final MbufBatch releasing;
    private final MbufBatch copy;
    private final Mbuf from = new Mbuf();
    private final Mbuf to = new Mbuf();
    private long duplicated;
    private long delayed;

    public DisorderingPacketIo(PacketIo inner, double duplicate, double delay, long seed) {
        super(inner);
        if (!(duplicate >= 0 && duplicate < 1) || !(delay >= 0 && delay < 1)) {
            throw new IllegalArgumentException("duplicate and delay probabilities must be in [0, 1), were " + duplicate + ", " + delay);
        }
        this.duplicate = duplicate;
        this.delay = delay;
        this.random = new SplittableRandom(seed);
        this.out = new MbufBatch(arena, MbufBatch.DEFAULT_CAPACITY);
        this.held = new MbufBatch(arena, HELD);
        this.releasing = new MbufBatch(arena, HELD);
        this.copy = new MbufBatch(arena, 1);
    }

    @Override
    public int transmit(MbufBatch batch) {
        for (int i = 0; i < held.count(); i++) {
            releasing.add(held.address(i));
        }
        held.clear();
        int sent = 0;
        for (int i = 0; i < batch.count(); i++) {
            long m = batch.address(i);
            if (random.nextDouble() < delay && !held.isFull()) {
                held.add(m);
                delayed++;
                continue;
            }
            sent += add(m);
            if (random.nextDouble() < duplicate && inner.allocate(copy, 1) == 1) {
                from.wrap(m);
                to.wrap(copy.address(0));
                to.copyFrom(from, 0, 0, from.dataLength());
                to.frameLength(from.dataLength());
                copy.clear();
                sent += add(to.address());
                duplicated++;
            }
        }
        batch.clear();
        for (int i = 0; i < releasing.count(); i++) {
            sent += add(releasing.address(i));
        }
        releasing.clear();
        if (!out.isEmpty()) {
            sent += inner.transmit(out);
        }
        return sent;
    }

    private int add(long m) {
        int sent = 0;
        if (out.isFull()) {
            sent = inner.transmit(out);
        }
        out.add(m);
        return sent;
    }

    /** Frames sent twice so far. */
    public long duplicated() {
        return duplicated;
    }

    /** Frames held back behind a later burst so far. */
    public long delayed() {
        return delayed;
    }
}
