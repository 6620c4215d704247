package io.srdnic.pmd.pcap;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A {@link PacketIo} that records what passes through another one: every frame handed to
 * {@link #transmit} is written to a {@link PcapWriter} before the inner port sends it (so a frame
 * the port then refuses is in the capture too, as it would be in a capture taken on the host), and,
 * if asked, every frame {@link #receive} returns. Several ports may share one writer, which then
 * holds both ends of a conversation in the order the calls were made.
 * <p>
 * Timestamps come from the caller's clock in nanoseconds, read once per burst: on the simulator
 * that is {@code SimNetwork.clock()}, so the capture shows virtual time. Allocates nothing per
 * frame; adds one copy of each captured frame to the data path.
 */
public final class CapturingPacketIo extends ForwardingPacketIo {
    private final PcapWriter writer;
    private final LongSupplier clock;
    private final boolean captureReceived;
    private final Mbuf view = new Mbuf();

    /**
     * Captures {@code inner}'s transmitted frames and, when {@code captureReceived}, its received
     * ones, into {@code writer}, stamped with {@code clockNanos}.
     */
    public CapturingPacketIo(PacketIo inner, PcapWriter writer, LongSupplier clockNanos, boolean captureReceived) {
        super(inner);
        this.writer = Objects.requireNonNull(writer, "writer");
        this.clock = Objects.requireNonNull(clockNanos, "clockNanos");
        this.captureReceived = captureReceived;
    }

    /** Captures {@code inner}'s transmitted frames only. */
    public CapturingPacketIo(PacketIo inner, PcapWriter writer, LongSupplier clockNanos) {
        this(inner, writer, clockNanos, false);
    }

    @Override
    public int receive(MbufBatch batch) {
        int n = inner.receive(batch);
        if (captureReceived && n > 0) {
            capture(batch, n);
        }
        return n;
    }

    @Override
    public int transmit(MbufBatch batch) {
        int n = batch.count();
        if (n > 0) {
            capture(batch, n);
        }
        return inner.transmit(batch);
    }

    private void capture(MbufBatch batch, int n) {
        long now = clock.getAsLong();
        for (int i = 0; i < n; i++) {
            writer.write(view.wrap(batch.address(i)), now);
        }
    }

    public PcapWriter writer() {
        return writer;
    }

    @Override
    public String toString() {
        return "CapturingPacketIo[" + inner + " -> " + writer.path() + (captureReceived ? ", tx+rx" : ", tx") + "]";
    }
}
