package io.srdnic.pmd;

import java.util.Objects;

/**
 * A {@link PacketIo} decorator's base: every call goes to the port it wraps, so a decorator
 * (capture, fault injection) overrides only the calls it changes.
 */
public abstract class ForwardingPacketIo implements PacketIo {
    protected final PacketIo inner;

    protected ForwardingPacketIo(PacketIo inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
    }

    /** The port this one wraps. */
    public PacketIo inner() {
        return inner;
    }

    @Override
    public int receive(MbufBatch batch) {
        return inner.receive(batch);
    }

    @Override
    public int transmit(MbufBatch batch) {
        return inner.transmit(batch);
    }

    @Override
    public int allocate(MbufBatch batch, int n) {
        return inner.allocate(batch, n);
    }

    @Override
    public void free(MbufBatch batch) {
        inner.free(batch);
    }

    @Override
    public int maxFrameLength() {
        return inner.maxFrameLength();
    }

    @Override
    public long macAddress() {
        return inner.macAddress();
    }

    @Override
    public long txDropped() {
        return inner.txDropped();
    }

    @Override
    public boolean readPortStats(long[] into) {
        return inner.readPortStats(into);
    }

    /**
     * The inner port's callback, so that a decorator that does take external buffers (it overrides
     * {@link #transmitsExternalBuffers}, false here: a decorator that copies or holds frames must
     * say it handles them) hands the driver the callback its shared info needs, never a null one.
     */
    @Override
    public long externalBufferFreeCallback() {
        return inner.externalBufferFreeCallback();
    }
}
