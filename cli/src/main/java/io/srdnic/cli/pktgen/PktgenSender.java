package io.srdnic.cli.pktgen;

import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;

/**
 * Sends {@code count} numbered frames as fast as the receiver's credits allow. Frames the TX queue
 * refuses are freed by the driver and their sequence numbers sent again, so "sent" is exact.
 * If credits stop coming (frames lost on the way), the window is reopened after a grace period
 * and the stall is counted, so a lossy link cannot hang the run.
 */
final class PktgenSender {
    private static final long STALL_NANOS = 20_000_000L;

    private final PacketIo io;
    private final MbufBatch out;
    private final MbufBatch in;
    private final long count;
    private final int length;
    private final int runId;
    private final long dst;
    private final long src;
    private final long window;
    private long next;
    private long credit;
    private long lastProgressNanos = System.nanoTime();
    private long stalls;
    private long foreign;

    PktgenSender(PacketIo io, Arena arena, long count, int length, int runId, long dst, long window) {
        this.io = io;
        this.out = new MbufBatch(arena);
        this.in = new MbufBatch(arena);
        this.count = count;
        this.length = length;
        this.runId = runId;
        this.dst = dst;
        this.src = io.macAddress();
        this.window = window;
    }

    /** One duty cycle; returns the work done (frames sent plus credits read). */
    int doWork(long nowNanos) {
        int work = readCredits(nowNanos);
        long inFlight = next - credit;
        if (next < count && inFlight >= window && nowNanos - lastProgressNanos > STALL_NANOS) {
            stalls++;
            credit = next;
            inFlight = 0;
            lastProgressNanos = nowNanos;
        }
        int n = (int) Math.min(Math.min(out.capacity(), count - next), window - inFlight);
        if (n > 0 && io.allocate(out, n) == n) {
            for (int i = 0; i < n; i++) {
                PktgenFrame.writeData(out.get(i), dst, src, runId, next + i, length);
            }
            int sent = io.transmit(out);
            next += sent;
            work += sent;
        }
        return work;
    }

    private int readCredits(long nowNanos) {
        int got = io.receive(in);
        for (int i = 0; i < got; i++) {
            long c = PktgenFrame.readCredit(in.get(i), runId);
            if (c == PktgenFrame.FOREIGN) {
                foreign++;
            } else if (c > credit) {
                credit = Math.min(c, next);
                lastProgressNanos = nowNanos;
            }
        }
        io.free(in);
        return got;
    }

    boolean done() {
        return next == count;
    }

    long sent() {
        return next;
    }

    long stalls() {
        return stalls;
    }

    long foreign() {
        return foreign;
    }
}
