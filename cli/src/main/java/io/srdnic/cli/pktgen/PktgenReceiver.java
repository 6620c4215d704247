package io.srdnic.cli.pktgen;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;
import java.util.BitSet;

/**
 * Receives and checks pktgen's frames: counts received, duplicated, corrupted and foreign frames,
 * times the run from the first to the last data frame, and returns credits to the sender.
 */
final class PktgenReceiver {
    /** Send a credit after this many data frames, and whenever the link falls idle. */
    private static final int CREDIT_EVERY = 64;
    /** While idle, repeat the last credit this often: a lost credit must not stall the sender. */
    private static final long CREDIT_REPEAT_NANOS = 200_000;

    static final long LEARN_PEER = -1;

    private final PacketIo io;
    private final MbufBatch in;
    private final MbufBatch credits;
    private final Mbuf scratch = new Mbuf();
    private final BitSet seen;
    private final long count;
    private final int length;
    private final int runId;
    private final long src;
    private long peer;
    private boolean peerKnown;
    private long dataFrames;
    private long received;
    private long duplicated;
    private long corrupted;
    private long foreign;
    private long credited;
    private long creditedNanos;
    private long firstNanos;
    private long lastNanos;

    /** {@code replyTo}: where credits go, or {@link #LEARN_PEER} to answer the data frames' source. */
    PktgenReceiver(PacketIo io, Arena arena, long count, int length, int runId, long replyTo) {
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--count must be at most " + Integer.MAX_VALUE);
        }
        this.io = io;
        this.in = new MbufBatch(arena);
        this.credits = new MbufBatch(arena, 1);
        this.seen = new BitSet((int) count);
        this.count = count;
        this.length = length;
        this.runId = runId;
        this.src = io.macAddress();
        this.peer = replyTo;
        this.peerKnown = replyTo != LEARN_PEER;
    }

    int doWork(long nowNanos) {
        int got = io.receive(in);
        for (int i = 0; i < got; i++) {
            Mbuf m = in.get(i);
            long seq = PktgenFrame.verifyData(m, scratch, runId, length);
            if (seq == PktgenFrame.FOREIGN) {
                foreign++;
                continue;
            }
            dataFrames++;
            if (!peerKnown) {
                // Credits go back to whoever sent the data (some ports, e.g. net_ring, have MAC 0).
                peer = ((long) Short.toUnsignedInt(m.getShortBE(6)) << 32) | Integer.toUnsignedLong(m.getIntBE(8));
                peerKnown = true;
            }
            if (seq == PktgenFrame.CORRUPT || seq >= count) {
                corrupted++;
                continue;
            }
            if (seen.get((int) seq)) {
                duplicated++;
            } else {
                seen.set((int) seq);
                received++;
            }
            if (firstNanos == 0) {
                firstNanos = nowNanos;
            }
            lastNanos = nowNanos;
        }
        io.free(in);
        if (peerKnown && (dataFrames - credited >= CREDIT_EVERY
            || (got == 0 && (dataFrames != credited || nowNanos - creditedNanos > CREDIT_REPEAT_NANOS)))) {
            sendCredit(nowNanos);
        }
        return got;
    }

    private void sendCredit(long nowNanos) {
        if (io.allocate(credits, 1) == 1) {
            PktgenFrame.writeCredit(credits.get(0), peer, src, runId, dataFrames);
            if (io.transmit(credits) == 1) {
                credited = dataFrames;
                creditedNanos = nowNanos;
            }
        }
    }

    PktgenResult result(long sent, long linkDropped) {
        double seconds = (lastNanos - firstNanos) / 1e9;
        double mpps = received > 1 && seconds > 0 ? (received - 1) / seconds / 1e6 : 0;
        return new PktgenResult(sent, received, corrupted, duplicated, foreign, linkDropped, mpps);
    }

    long received() {
        return received;
    }
}
