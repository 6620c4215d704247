package io.srdnic.cli.pktgen;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The initiator of a raw ping-pong: one frame at a time goes to the reflector, and the time from
 * just before its transmit burst to the receive burst that brings it back is one round trip,
 * recorded (after the warm-up) with System.nanoTime into an HdrHistogram. The frame is built by
 * one copy from a prepared template plus its sequence number, as a transport copies a payload.
 * A frame not back within the timeout counts as lost and the next one goes, so a lossy link
 * cannot hang the run; a reflection arriving after its timeout is ignored by its sequence number.
 * <pre>
 *  0            6            12     14      18       22           30
 *  | dst MAC    | src MAC    | 88B7 | magic | run id | sequence   | pattern ... (frame length)
 * </pre>
 */
public final class PingPongInitiator {
    public static final short ETHERTYPE = (short) 0x88B7;
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final PacketIo io;
    private final MbufBatch out;
    private final MbufBatch in;
    private final MemorySegment template;
    private final int length;
    private final int runId;
    private final RoundTrips rounds;
    private final long timeoutNanos;
    private long next;
    private boolean waiting;
    private long lost;
    private long warmupLost;
    private long stale;
    private long returned;

    /**
     * @param length frame length in bytes (Ethernet header included, CRC not), at least 60
     * @param warmup round trips made before measuring (JIT, caches, the peer's first frames)
     * @param warmupNanos and at least this long: more round trips are warm-up until it has passed
     */
    public PingPongInitiator(PacketIo io, Arena arena, long peerMac, int length, int runId, long iterations, long warmup,
                             long warmupNanos, long timeoutNanos) {
        if (length < PktgenFrame.MIN_LENGTH || length > io.maxFrameLength()) {
            throw new IllegalArgumentException("ping-pong frame length must be " + PktgenFrame.MIN_LENGTH + ".." + io.maxFrameLength()
                + " on this link, was " + length);
        }
        this.io = io;
        this.out = new MbufBatch(arena, 1);
        this.in = new MbufBatch(arena);
        this.length = length;
        this.runId = runId;
        this.rounds = new RoundTrips(iterations, warmup, warmupNanos);
        this.timeoutNanos = timeoutNanos;
        this.template = arena.allocate(length, 64);
        long src = io.macAddress();
        MemorySegment t = template;
        t.set(BE16, 0, (short) (peerMac >>> 32));
        t.set(BE32, 2, (int) peerMac);
        t.set(BE16, 6, (short) (src >>> 32));
        t.set(BE32, 8, (int) src);
        t.set(BE16, PktgenFrame.ETHERTYPE_OFFSET, ETHERTYPE);
        t.set(BE32, PktgenFrame.MAGIC_OFFSET, PktgenFrame.MAGIC);
        t.set(BE32, PktgenFrame.RUN_ID_OFFSET, runId);
        for (int off = PktgenFrame.HEADER_LENGTH; off < length; off++) {
            t.set(ValueLayout.JAVA_BYTE, off, PktgenFrame.pattern(0, off, runId));
        }
    }

    /** One duty cycle: send the next frame if none is out, look for its reflection, time out a lost one. */
    public int doWork() {
        int work = 0;
        if (!waiting && next < rounds.total() && io.allocate(out, 1) == 1) {
            Mbuf m = out.get(0);
            m.copyFrom(template, 0, 0, length);
            m.putLongBE(PktgenFrame.SEQUENCE_OFFSET, next);
            m.frameLength(length);
            long t = System.nanoTime();
            rounds.starting(next, t);
            if (io.transmit(out) == 1) {
                rounds.sent(next, t);
                waiting = true;
                work++;
            }
        }
        int got = io.receive(in);
        if (got > 0) {
            long t = System.nanoTime();
            for (int i = 0; i < got; i++) {
                Mbuf m = in.get(i);
                if (waiting && isOurs(m) && m.getLongBE(PktgenFrame.SEQUENCE_OFFSET) == next) {
                    returned++;
                    rounds.returned(next, t);
                    next++;
                    waiting = false;
                } else {
                    stale++;
                }
            }
            io.free(in);
            work += got;
        } else if (waiting && System.nanoTime() - rounds.sentAt() > timeoutNanos) {
            if (rounds.measured(next)) {
                lost++;
            } else {
                warmupLost++;
            }
            next++;
            waiting = false;
        }
        return work;
    }

    private boolean isOurs(Mbuf m) {
        return m.dataLength() >= PktgenFrame.HEADER_LENGTH && m.getShortBE(PktgenFrame.ETHERTYPE_OFFSET) == ETHERTYPE
            && m.getIntBE(PktgenFrame.MAGIC_OFFSET) == PktgenFrame.MAGIC && m.getIntBE(PktgenFrame.RUN_ID_OFFSET) == runId
            && m.packetLength() == length;
    }

    /** Round trips the run will make, warm-up included (a timed warm-up adds to it as it goes). */
    public long total() {
        return rounds.total();
    }

    public boolean done() {
        return next >= rounds.total();
    }

    /** Round trips done, warm-up included. */
    public long progress() {
        return next;
    }

    /** Frames that came back in time. */
    public long returned() {
        return returned;
    }

    /** Frames received that were not the awaited reflection (late ones, others' frames). */
    public long stale() {
        return stale;
    }

    public long warmupLost() {
        return warmupLost;
    }

    public LatencySummary summary() {
        return rounds.summary(lost);
    }
}
