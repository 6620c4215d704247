package io.srdnic.cli.pktgen;

import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;

/**
 * Sends blast frames as fast as the TX queue takes them, like testpmd's txonly: a full burst per
 * cycle, the header written and nothing else (the payload is whatever the mbuf held), no credits,
 * no sequence. What the queue refuses is freed by the driver and counted, not sent again.
 */
final class BlastSender {
    private final PacketIo io;
    private final MbufBatch out;
    private final int length;
    private final int runId;
    private final long dst;
    private final long src;
    private long sent;
    private long poolEmpty;

    BlastSender(PacketIo io, Arena arena, int length, int runId, long dst) {
        this.io = io;
        this.out = new MbufBatch(arena);
        this.length = length;
        this.runId = runId;
        this.dst = dst;
        this.src = io.macAddress();
    }

    /** One burst; returns the frames the queue took. */
    int doWork() {
        int n = out.capacity();
        if (io.allocate(out, n) != n) {
            poolEmpty++; // every mbuf is in flight: the receiver (or the link) is the bottleneck
            return 0;
        }
        for (int i = 0; i < n; i++) {
            PktgenFrame.writeBlast(out.get(i), dst, src, runId, length);
        }
        int took = io.transmit(out);
        sent += took;
        return took;
    }

    long sent() {
        return sent;
    }

    /** Frames the TX queue refused (freed by the driver). */
    long refused() {
        return io.txDropped();
    }

    long poolEmpty() {
        return poolEmpty;
    }
}
