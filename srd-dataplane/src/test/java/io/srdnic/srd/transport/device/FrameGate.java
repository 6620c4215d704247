package io.srdnic.srd.transport.device;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.Arena;
import java.util.function.Predicate;

/**
 * A host's port as a test wants its sent frames treated: those {@link #applies} selects pass,
 * wait until {@link #release} (a delayed, not lost, stream) or vanish (lost), by {@link #mode};
 * the others always pass.
 */
final class FrameGate extends ForwardingPacketIo {
    enum Mode { PASS, HOLD, DROP }

    static final Predicate<Mbuf> ACKS = m -> SrdHeader.type(m) == PacketType.ACK;
    static final Predicate<Mbuf> ACKS_WITHOUT_DUPLICATE_REPORT = m -> ACKS.test(m) && (SrdHeader.flags(m) & SrdHeader.FLAG_DUPLICATE) == 0;
    static final Predicate<Mbuf> FIRST_COPIES_OF_DATA = m -> PacketType.isData(SrdHeader.type(m))
        && (SrdHeader.flags(m) & SrdHeader.FLAG_RETRANSMISSION) == 0;

    Mode mode = Mode.PASS;
    Predicate<Mbuf> applies = ACKS;
    int held;
    int dropped;
    private final Arena arena = Arena.ofAuto();
    private final long[] waiting = new long[8192];
    private final MbufBatch scratch = new MbufBatch(arena, 64);
    private final Mbuf view = new Mbuf();

    FrameGate(PacketIo inner) {
        super(inner);
    }

    @Override
    public int transmit(MbufBatch batch) {
        int n = batch.count();
        if (mode == Mode.PASS) {
            return inner.transmit(batch);
        }
        int kept = 0;
        for (int i = 0; i < n; i++) {
            long address = batch.address(i);
            if (!applies.test(view.wrap(address))) {
                batch.set(kept++, address);
            } else if (mode == Mode.HOLD) {
                waiting[held++] = address;
            } else {
                scratch.clear();
                scratch.add(address);
                inner.free(scratch);
                dropped++;
            }
        }
        batch.count(kept);
        inner.transmit(batch);
        return n;
    }

    /** Every frame held goes now, in the order it was sent; the gate passes everything from here on. */
    void release() {
        mode = Mode.PASS;
        for (int i = 0; i < held; ) {
            scratch.clear();
            while (i < held && !scratch.isFull()) {
                scratch.add(waiting[i++]);
            }
            inner.transmit(scratch);
        }
        held = 0;
    }
}
