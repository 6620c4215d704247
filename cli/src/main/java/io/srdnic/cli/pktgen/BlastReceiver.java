package io.srdnic.cli.pktgen;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;

/**
 * Counts this run's blast frames and their bytes, and frees them. The rate is taken over a measured
 * window that opens {@code warmupNanos} after the first frame (while the JIT compiles both loops
 * the rate is not the link's) and closes at the last frame: frames and bytes received between the
 * first burst after the warm-up and the last burst, over the time between them.
 */
final class BlastReceiver {
    private final PacketIo io;
    private final MbufBatch in;
    private final int runId;
    private final long warmupNanos;
    private long received;
    private long bytes;
    private long foreign;
    private long firstNanos;
    private long windowStartNanos;
    private long windowStartFrames;
    private long windowStartBytes;
    private boolean measuring;
    private long lastNanos;

    BlastReceiver(PacketIo io, Arena arena, int runId, long warmupNanos) {
        this.io = io;
        this.in = new MbufBatch(arena);
        this.runId = runId;
        this.warmupNanos = warmupNanos;
    }

    /** One burst; returns the frames taken off the queue. */
    int doWork(long nowNanos) {
        int got = io.receive(in);
        if (got == 0) {
            return 0;
        }
        int ours = 0;
        long burstBytes = 0;
        for (int i = 0; i < got; i++) {
            Mbuf m = in.get(i);
            if (PktgenFrame.isBlast(m, runId)) {
                ours++;
                burstBytes += m.packetLength();
            }
        }
        foreign += got - ours;
        io.free(in);
        if (ours > 0) {
            if (received == 0) {
                firstNanos = nowNanos;
            } else if (!measuring && nowNanos - firstNanos >= warmupNanos) {
                // The window opens before this burst: it counts.
                measuring = true;
                windowStartNanos = lastNanos;
                windowStartFrames = received;
                windowStartBytes = bytes;
            }
            received += ours;
            bytes += burstBytes;
            lastNanos = nowNanos;
        }
        return got;
    }

    long received() {
        return received;
    }

    long foreign() {
        return foreign;
    }

    /** The measured window's frames, bytes and length; all 0 if it never opened (too few frames or too short a run). */
    BlastResult result(long sent, long txRefused, int frameLength) {
        long frames = measuring ? received - windowStartFrames : 0;
        long windowBytes = measuring ? bytes - windowStartBytes : 0;
        long nanos = measuring ? lastNanos - windowStartNanos : 0;
        return new BlastResult(sent, received, foreign, txRefused, frameLength, frames, windowBytes, nanos);
    }
}
