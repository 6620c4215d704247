package io.srdnic.srd.testing;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdPort;
import java.util.function.IntUnaryOperator;

/**
 * Writes hand-made SRD frames into an mbuf with the codecs: well-formed (valid checksums) whatever
 * the field values a test chooses, spoofed addresses, foreign contexts and stale epochs included.
 * A test sets the fields it cares about (they keep their values from frame to frame) and writes a
 * data packet or an ACK; the Ethernet/IPv4/UDP headers go in front through
 * {@link Ipv4UdpFrame#write}, as the transport's own frames do.
 */
public final class FrameForger {
    // Ethernet, IPv4, UDP
    public long srcMac;
    public long dstMac;
    public int srcIp;
    public int dstIp;
    public int srcPort = SrdPort.ENTROPY_BASE;
    public int dstPort = SrdPort.DEFAULT;
    public boolean udpChecksum = true;

    // the SRD header of a data packet, and the fields an ACK shares with it
    public int type = PacketType.SEND;
    public int flags;
    public int srcContext;
    public int dstContext;
    public int epoch;
    public int psn;
    public int sendBase;
    public int srcQpn = 1;
    public int dstQpn;
    public int qkey;
    public int immediate;
    public long timestamp;

    // an ACK's own fields
    public int cumulativePsn;
    public int echoedEpoch;
    public int triggerPsn;
    public long echoedTimestamp;
    /** With {@code SrdHeader.FLAG_DUPLICATE} in {@link #flags}: the PSN the ACK reports received again. */
    public int duplicatePsn;
    public final long[] sack = new long[SrdAck.SACK_WORDS];

    /** A forger of frames from {@code srcMac}/{@code srcIp} to {@code dstMac}/{@code dstIp}. */
    public FrameForger addresses(long fromMac, int fromIp, long toMac, int toIp) {
        this.srcMac = fromMac;
        this.srcIp = fromIp;
        this.dstMac = toMac;
        this.dstIp = toIp;
        return this;
    }

    /**
     * Writes a data or probe packet of {@link #type} carrying {@code payloadLength} bytes, byte
     * {@code i} being {@code payload.applyAsInt(i)}; returns the frame's length.
     */
    public int writeData(Mbuf m, int payloadLength, IntUnaryOperator payload) {
        writeHeader(m, payloadLength, payload);
        return writeL2L4(m, SrdHeader.LENGTH + payloadLength);
    }

    /**
     * Writes the SRD header of a data or probe packet and its payload, not yet the headers in front
     * (a test adds an extended header or changes a field first, then calls {@link #writeL2L4}).
     */
    public void writeHeader(Mbuf m, int payloadLength, IntUnaryOperator payload) {
        SrdHeader.versionAndType(m, type);
        SrdHeader.flags(m, flags);
        SrdHeader.payloadLength(m, payloadLength);
        SrdHeader.sourceContext(m, srcContext);
        SrdHeader.destinationContext(m, dstContext);
        SrdHeader.epoch(m, epoch);
        SrdHeader.psn(m, psn);
        SrdHeader.sendBase(m, sendBase);
        SrdHeader.sourceQpn(m, srcQpn);
        SrdHeader.destinationQpn(m, dstQpn);
        SrdHeader.qkey(m, qkey);
        SrdHeader.immediate(m, immediate);
        SrdHeader.timestamp(m, timestamp);
        for (int i = 0; i < payloadLength; i++) {
            m.putByte(SrdHeader.PAYLOAD_OFFSET + i, (byte) payload.applyAsInt(i));
        }
    }

    /**
     * Writes an ACK (with {@link #flags}: an RC ACK carries {@code SrdHeader.FLAG_RC}) whose drop
     * entries are the (PSN, reason) pairs of {@code drops}; returns the frame's length.
     */
    public int writeAck(Mbuf m, int... drops) {
        int count = drops.length / 2;
        SrdHeader.versionAndType(m, PacketType.ACK);
        SrdHeader.flags(m, flags);
        SrdAck.dropCount(m, count);
        SrdAck.sourceContext(m, srcContext);
        SrdAck.destinationContext(m, dstContext);
        SrdAck.epoch(m, epoch);
        SrdAck.cumulativePsn(m, cumulativePsn);
        SrdAck.echoedEpoch(m, echoedEpoch);
        SrdAck.triggerPsn(m, triggerPsn);
        if ((flags & SrdHeader.FLAG_DUPLICATE) != 0) {
            SrdAck.duplicate(m, duplicatePsn);
        }
        SrdAck.echoedTimestamp(m, echoedTimestamp);
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            SrdAck.sackWord(m, w, sack[w]);
        }
        for (int i = 0; i < count; i++) {
            SrdAck.drop(m, i, drops[2 * i], drops[2 * i + 1]);
        }
        return writeL2L4(m, SrdAck.length(count));
    }

    /** The Ethernet, IPv4 and UDP headers in front of {@code srdLength} SRD bytes already written; returns the frame's length. */
    public int writeL2L4(Mbuf m, int srdLength) {
        Ipv4UdpFrame.write(m, srcMac, dstMac, srcIp, dstIp, srcPort, dstPort, srdLength, udpChecksum);
        return m.dataLength();
    }
}
