package io.srdnic.cli.pktgen;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;

/**
 * The reflector of a raw ping-pong: every ping frame of this run that arrives has its MAC
 * addresses swapped and goes straight back out in the same mbuf; anything else is freed and counted.
 */
public final class PingPongReflector {
    private final PacketIo io;
    private final MbufBatch in;
    private final MbufBatch out;
    private final MbufBatch drop;
    private final int runId;
    private long reflected;
    private long foreign;

    public PingPongReflector(PacketIo io, Arena arena, int runId) {
        this.io = io;
        this.in = new MbufBatch(arena);
        this.out = new MbufBatch(arena);
        this.drop = new MbufBatch(arena);
        this.runId = runId;
    }

    public int doWork() {
        int got = io.receive(in);
        if (got == 0) {
            return 0;
        }
        for (int i = 0; i < got; i++) {
            Mbuf m = in.get(i);
            if (m.dataLength() >= PktgenFrame.HEADER_LENGTH && m.getShortBE(PktgenFrame.ETHERTYPE_OFFSET) == PingPongInitiator.ETHERTYPE
                && m.getIntBE(PktgenFrame.MAGIC_OFFSET) == PktgenFrame.MAGIC && m.getIntBE(PktgenFrame.RUN_ID_OFFSET) == runId) {
                short dstHi = m.getShortBE(0);
                int dstLo = m.getIntBE(2);
                m.putShortBE(0, m.getShortBE(6));
                m.putIntBE(2, m.getIntBE(8));
                m.putShortBE(6, dstHi);
                m.putIntBE(8, dstLo);
                out.add(in.address(i));
            } else {
                drop.add(in.address(i));
                foreign++;
            }
        }
        in.clear();
        if (!out.isEmpty()) {
            reflected += io.transmit(out);
        }
        if (!drop.isEmpty()) {
            io.free(drop);
        }
        return got;
    }

    /** Frames sent back (the TX queue may refuse some: those are lost, and the initiator times them out). */
    public long reflected() {
        return reflected;
    }

    public long foreign() {
        return foreign;
    }

    /** Frees whatever is waiting in the receive queue (between runs on one port). */
    public static int drain(PacketIo io, MbufBatch batch) {
        int total = 0;
        for (int n; (n = io.receive(batch)) > 0; ) {
            io.free(batch);
            total += n;
        }
        return total;
    }
}
