package io.srdnic.srd.transport.port;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;

/**
 * Writes the ACKs this device sends, SRD's and RC's alike: one {@link SrdAck} layout (cumulative
 * PSN, the echoes that time the round trip, selective bits, drop entries), sent back on the path
 * the acknowledged packet came by. An ACK is written in two steps so that its sender can add the
 * drop entries it owes between them: {@link #begin}, then {@link SrdAck#drop} for each, then
 * {@link #send}. One at a time, on the transport's thread.
 */
public final class AckWriter {
    /** What an ACK's selective bits are read from: what its sender holds above the cumulative PSN. */
    public interface SackSource {
        /** Bit i of word {@code word}: PSN cumulative + 1 + 64 * word + i is held. */
        long sackWord(int cumulative, int word);
    }

    private final TxBurst tx;
    private final FrameWriter frames;
    private final int epoch;
    private final SrdCounters counters;
    /** The ACK being written: its TX buffer and drop count, between begin and send. */
    private long address;
    private int drops;

    public AckWriter(TxBurst tx, FrameWriter frames, int epoch, SrdCounters counters) {
        this.tx = tx;
        this.frames = frames;
        this.epoch = epoch;
        this.counters = counters;
    }

    /**
     * Starts an ACK from context (or QP) {@code source} to the peer's {@code destination} with room
     * for {@code drops} drop entries; returns the frame, for the caller to write them into, or null
     * when no TX buffer is free (no ACK goes: the peer's sender retries).
     */
    public Mbuf begin(int flags, int drops, int source, int destination, int cumulative, int echoedEpoch, int triggerPsn,
               long echoedTimestamp, SackSource sacks) {
        long taken = tx.take();
        if (taken == 0) {
            return null;
        }
        address = taken;
        this.drops = drops;
        Mbuf a = tx.view.wrap(taken);
        SrdHeader.versionAndType(a, PacketType.ACK);
        SrdHeader.flags(a, flags);
        SrdAck.dropCount(a, drops);
        SrdAck.sourceContext(a, source);
        SrdAck.destinationContext(a, destination);
        SrdAck.epoch(a, epoch);
        SrdAck.cumulativePsn(a, cumulative);
        SrdAck.echoedEpoch(a, echoedEpoch);
        SrdAck.triggerPsn(a, triggerPsn);
        SrdAck.echoedTimestamp(a, echoedTimestamp);
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            SrdAck.sackWord(a, w, sacks.sackWord(cumulative, w));
        }
        return a;
    }

    /** Sends the ACK begun last to the peer at {@code mac}/{@code ip}, back on the path of its packet from {@code sourcePort}. */
    public void send(long mac, int ip, int sourcePort) {
        // Back on the path the data came by: a dead path loses both, and only that path is blamed.
        frames.answer(tx.view.wrap(address), mac, ip, sourcePort, SrdAck.length(drops));
        counters.txAcks++;
        tx.emit(address);
    }
}
