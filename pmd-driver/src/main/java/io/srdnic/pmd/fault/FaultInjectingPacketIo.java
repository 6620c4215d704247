package io.srdnic.pmd.fault;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;
import java.util.SplittableRandom;

/**
 * A {@link PacketIo} decorator that drops a seeded fraction of the frames it is given to send, on
 * real ports where the kernel offers no fault injection of its own (no netem here). Dropped frames
 * are freed and counted; the rest keep their order.
 */
public final class FaultInjectingPacketIo extends ForwardingPacketIo {
    private volatile double lossProbability;
    private final SplittableRandom random;
    private final Arena arena = Arena.ofConfined();
    private final MbufBatch doomed;
    private long injectedDrops;

    public FaultInjectingPacketIo(PacketIo inner, double lossProbability, long seed) {
        super(inner);
        if (!(lossProbability >= 0 && lossProbability < 1)) {
            throw new IllegalArgumentException("loss probability must be in [0, 1), was " + lossProbability);
        }
        this.lossProbability = lossProbability;
        this.random = new SplittableRandom(seed);
        this.doomed = new MbufBatch(arena, MbufBatch.DEFAULT_CAPACITY * 8);
    }

    @Override
    public int transmit(MbufBatch batch) {
        double p = lossProbability;
        if (p > 0) {
            int kept = 0;
            for (int i = 0; i < batch.count(); i++) {
                long m = batch.address(i);
                if (random.nextDouble() < p && !doomed.isFull()) {
                    doomed.add(m);
                } else {
                    batch.set(kept++, m);
                }
            }
            injectedDrops += doomed.count();
            inner.free(doomed);
            batch.count(kept);
        }
        return inner.transmit(batch);
    }

    /** Changes the loss from now on (the thread that transmits sees it on its next burst). */
    public void lossProbability(double p) {
        if (!(p >= 0 && p < 1)) {
            throw new IllegalArgumentException("loss probability must be in [0, 1), was " + p);
        }
        this.lossProbability = p;
    }

    /** Frames this decorator dropped on purpose. */
    public long injectedDrops() {
        return injectedDrops;
    }
}
