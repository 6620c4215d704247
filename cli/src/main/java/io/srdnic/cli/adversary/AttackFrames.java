package io.srdnic.cli.adversary;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import io.srdnic.srd.wire.Checksums;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Builds one hostile frame of a given {@link Attack} class at a time, in a scratch buffer shaped
 * like an mbuf (so the transport's own codecs write it), from what the attacker knows: the
 * {@link AttackTarget} and what its {@link WireTap} has sniffed of the live stream. Every frame
 * carries a non-zero IPv4 identification (SRD sends 0 and checks nothing there), which is how
 * the tap knows the attacker's frames from the stream's. Used by one thread.
 */
public final class AttackFrames {
    /** The flood's source addresses: 65536 of 198.18.0.0/15, the benchmarking range. */
    static final int FLOOD_NET = 0xC612_0000;
    static final int FLOOD_ADDRESSES = 1 << 16;
    /** Other addresses the attacker sends from: 192.0.2.1..16 (TEST-NET-1). */
    static final int OTHER_NET = 0xC000_0201;
    static final int OTHER_ADDRESSES = 16;
    private static final int MIN_RAW_FRAME = FrameLayout.ETHERNET_LENGTH;
    private static final int[] SPOOFED_IPS = {0, 0xFFFF_FFFF, 0x7F00_0001, 0xE000_0001};
    private static final int[] RDMA_TYPES = {PacketType.RDMA_WRITE, PacketType.RDMA_WRITE_WITH_IMM, PacketType.RDMA_READ,
        PacketType.READ_RESPONSE};

    private final AttackTarget t;
    private final WireTap tap;
    private final Mbuf m;
    private Sniffed s = Sniffed.NOTHING;

    // The frame being built: set to the live stream's values by peerData(), then changed by the attack.
    private long srcMac;
    private long dstMac;
    private int srcIp;
    private int dstIp;
    private int srcPort;
    private int dstPort;
    private int version;
    private int type;
    private int flags;
    private int srcContext;
    private int dstContext;
    private int epoch;
    private int psn;
    private int sendBase;
    private int srcQpn;
    private int dstQpn;
    private int qkey;
    private int payload;
    /** The payload length field when it should lie about the payload; -1: tell the truth. */
    private int payloadField;

    public AttackFrames(AttackTarget target, WireTap tap, Arena arena) {
        this.t = target;
        this.tap = tap;
        SimBufferPool scratch = new SimBufferPool(arena, 1, Math.max(target.maxFrame(), WireTap.REPLAY_ROOM));
        MbufBatch one = new MbufBatch(arena, 1);
        scratch.allocate(one, 1, 0);
        this.m = new Mbuf().wrap(one.address(0));
    }

    /** The frame last built, {@code length} bytes. */
    public MemorySegment frame(int length) {
        return m.room().asSlice(0, length);
    }

    /**
     * Builds a frame of class {@code a}; returns its length, or 0 when the class has nothing to
     * send yet (replay before any frame was seen).
     */
    public int build(Attack a, SplittableRandom r) {
        s = tap.sniffed();
        if (!knowsEnoughFor(a)) {
            return 0;
        }
        int length = switch (a) {
            case TRUNCATED -> truncated(r);
            case OVERSIZED -> oversized(r);
            case BAD_CHECKSUM -> badChecksum(r);
            case BAD_VERSION -> badVersion(r);
            case BAD_TYPE -> badType(r);
            case FAR_PSN -> farPsn(r);
            case FAR_SEND_BASE -> farSendBase(r);
            case FORGED_ACK -> forgedAck(r);
            case FORGED_DROP -> forgedDrop(r);
            case WRONG_QKEY -> wrongQkey(r);
            case FORGED_CONTEXT -> forgedContext(r);
            case STALE_EPOCH -> staleEpoch(r);
            case REPLAY -> replay(r);
            case SPOOF_PEER -> spoofPeer(r);
            case SPOOF_SOURCE -> spoofSource(r);
            case FLOOD -> flood(r);
        };
        return length;
    }

    /**
     * Whether the tap has seen what class {@code a} forges from: a class built on the live stream's
     * ids sends nothing before it knows them (with made-up ids it would be another class).
     */
    private boolean knowsEnoughFor(Attack a) {
        return switch (a) {
            case FAR_PSN, FAR_SEND_BASE, STALE_EPOCH -> s.knowsPeerSide() && s.knowsFollowedIncarnation();
            case REPLAY -> s.knowsPeerSide();
            case FORGED_ACK, FORGED_DROP, FORGED_CONTEXT -> s.knowsPeerSide() && s.knowsVictimSide();
            default -> true;
        };
    }

    // ---------------------------------------------------------------- malformed: the parser's business

    private int truncated(SplittableRandom r) {
        peerData(r);
        int full = writeData(r);
        switch (r.nextInt(4)) {
            case 0 -> { // not even Ethernet + IPv4 + UDP
                return cut(r.nextInt(MIN_RAW_FRAME, FrameLayout.L2_L4_LENGTH));
            }
            case 1 -> { // cut inside the IPv4 packet its header announces
                return cut(r.nextInt(FrameLayout.L2_L4_LENGTH, full));
            }
            case 2 -> { // consistent lengths, but an SRD part shorter than the data header
                payload = 0;
                return finish(r, writeFrame(r.nextInt(1, SrdHeader.LENGTH)));
            }
            default -> { // an ACK shorter than its 72 bytes, or no SRD byte at all
                ackDefaults(r);
                writeAckHeader(0);
                return finish(r, writeFrame(r.nextBoolean() ? 0 : r.nextInt(SrdHeader.LENGTH, SrdAck.LENGTH)));
            }
        }
    }

    private int cut(int length) {
        m.frameLength(length);
        // Marked too when the identification is still inside the frame.
        if (length >= FrameLayout.IPV4_OFFSET + 6) {
            m.putShortBE(FrameLayout.IPV4_OFFSET + 4, (short) 0xA5A5);
        }
        return length;
    }

    private int oversized(SplittableRandom r) {
        peerData(r);
        if (r.nextInt(3) == 0) {
            ackDefaults(r);
            int claimed = r.nextInt(SrdAck.MAX_DROPS + 1, 0x1_0000);
            int carried = Math.min(claimed, (t.maxFrame() - FrameLayout.SRD_OFFSET - SrdAck.LENGTH) / SrdAck.DROP_ENTRY_LENGTH);
            writeAckHeader(0);
            for (int i = 0; i < carried; i++) {
                SrdAck.drop(m, i, r.nextInt(), DropReason.RNR);
            }
            SrdAck.dropCount(m, claimed);
            return finish(r, writeFrame(SrdAck.length(carried)));
        }
        // A payload longer than the MTU, as much of it as the link carries, the length field saying so.
        payload = Math.max(1, Math.min(t.mtu() + 1 + r.nextInt(4096), t.maxFrame() - SrdHeader.PAYLOAD_OFFSET));
        payloadField = Math.min(0xFFFF, Math.max(payload, t.mtu() + 1 + r.nextInt(1024)));
        qkey = badQkey(r);
        return finish(r, writeData(r));
    }

    private int badChecksum(SplittableRandom r) {
        peerData(r);
        qkey = badQkey(r);
        int length = finish(r, writeData(r));
        int field = r.nextBoolean() ? FrameLayout.IPV4_OFFSET + 10 : FrameLayout.UDP_OFFSET + 6;
        int good = m.getShortBE(field) & 0xFFFF;
        int bad = good ^ (1 + r.nextInt(0xFFFF));
        m.putShortBE(field, (short) (bad == 0 ? 0x1234 : bad)); // 0 would mean "no UDP checksum"
        return length;
    }

    private int badVersion(SplittableRandom r) {
        peerData(r);
        int v = r.nextInt(15);
        version = v == 0 ? 0 : v + 1; // 0 or 2..15
        return finish(r, writeData(r));
    }

    private int badType(SplittableRandom r) {
        peerData(r);
        if (r.nextInt(4) == 0) {
            // Well-formed RDMA the victim must refuse: a WRITE, WRITE with immediate or READ naming an
            // rkey of the attacker's making (REMOTE_ACCESS), or a READ_RESPONSE to a read the victim
            // never made (REMOTE_INVALID_REQUEST). From another address, so its drop lands in a
            // context of its own and not on a PSN of the real stream.
            fromOtherAddress(r);
            type = RDMA_TYPES[r.nextInt(RDMA_TYPES.length)];
            return finish(r, writeData(r));
        }
        int k = r.nextInt(PacketType.MAX_TYPE_CODE - PacketType.MAX + 1);
        type = k == 0 ? 0 : PacketType.MAX + k; // 0, or a type above the last defined one
        return finish(r, writeData(r));
    }

    // ---------------------------------------------------------------- the live stream's ids, abused

    private int farPsn(SplittableRandom r) {
        peerData(r);
        int distance = r.nextInt(1 << 16, 1 << 30);
        psn = s.peerPsn() + (r.nextBoolean() ? distance : -distance);
        return finish(r, writeData(r));
    }

    private int farSendBase(SplittableRandom r) {
        peerData(r);
        sendBase = s.peerSendBase() + r.nextInt(1 << 13, 1 << 30);
        psn = r.nextBoolean() ? sendBase + r.nextInt(4) : s.peerPsn();
        if (r.nextBoolean()) {
            qkey = badQkey(r);
        }
        return finish(r, writeData(r));
    }

    private int forgedAck(SplittableRandom r) {
        ackDefaults(r);
        // Acknowledges PSNs the victim has not sent: far beyond the last it sent (never in this run).
        int cumulative = s.victimPsn() + (r.nextInt(4) == 0 ? Integer.MAX_VALUE - r.nextInt(1 << 20) : r.nextInt(1 << 20, 1 << 28));
        writeAckHeader(cumulative);
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            SrdAck.sackWord(m, w, r.nextBoolean() ? -1L : r.nextLong());
        }
        return finish(r, writeFrame(SrdAck.LENGTH));
    }

    private int forgedDrop(SplittableRandom r) {
        ackDefaults(r);
        // A plausible cumulative PSN (one the victim has had acknowledged), drops of PSNs it has not sent.
        writeAckHeader(s.victimSendBase());
        int n = r.nextInt(1, SrdAck.MAX_DROPS + 1);
        int first = s.victimPsn() + r.nextInt(1 << 16, 1 << 28);
        for (int i = 0; i < n; i++) {
            SrdAck.drop(m, i, first + i, r.nextInt(DropReason.BAD_DEST_QP, DropReason.REMOTE_INVALID_REQUEST + 1));
        }
        SrdAck.dropCount(m, n);
        return finish(r, writeFrame(SrdAck.length(n)));
    }

    private int wrongQkey(SplittableRandom r) {
        peerData(r);
        fromOtherAddress(r);
        if (r.nextInt(4) == 0) {
            dstQpn = t.victimQpn() + 1 + r.nextInt(1000); // a QP that does not exist, with the right Q_Key
        } else {
            qkey = badQkey(r);
        }
        return finish(r, writeData(r));
    }

    private int forgedContext(SplittableRandom r) {
        peerData(r);
        switch (r.nextInt(4)) {
            case 0 -> { // the peer's real context id and epoch, naming a destination context the victim does not have
                dstContext = r.nextInt();
                psn = s.peerPsn() - r.nextInt(1, 64);
            }
            case 1 -> { // the real epoch under another context id
                srcContext = r.nextInt();
                anchorNearOrRandom(r);
            }
            case 2 -> { // ACKs naming contexts and epochs that do not exist
                ackDefaults(r);
                int which = r.nextInt(3);
                writeAckHeader(r.nextInt());
                if (which == 0) {
                    SrdAck.destinationContext(m, r.nextInt());
                } else if (which == 1) {
                    SrdAck.echoedEpoch(m, nonZero(r));
                } else {
                    SrdAck.sourceContext(m, r.nextInt());
                    SrdAck.epoch(m, nonZero(r));
                }
                return finish(r, writeFrame(SrdAck.length(0)));
            }
            default -> { // probes and probe replies for contexts that do not exist
                type = r.nextBoolean() ? PacketType.PROBE : PacketType.PROBE_REPLY;
                payload = 0;
                dstContext = r.nextInt();
                psn = r.nextInt(64);
                return finish(r, writeData(r));
            }
        }
        qkey = badQkey(r);
        return finish(r, writeData(r));
    }

    private int staleEpoch(SplittableRandom r) {
        peerData(r);
        epoch ^= nonZero(r);
        if (epoch == 0) {
            epoch = 1;
        }
        // Near the stream's recent PSNs, as a restarted peer's packets would be.
        psn = s.peerPsn() - r.nextInt(64);
        sendBase = s.peerSendBase() - r.nextInt(64);
        qkey = badQkey(r);
        return finish(r, writeData(r));
    }

    private int replay(SplittableRandom r) {
        int length = tap.replayFrame(m.room());
        if (length < SrdHeader.PAYLOAD_OFFSET) {
            return 0;
        }
        m.frameLength(length);
        if (r.nextBoolean()) {
            SrdHeader.flags(m, SrdHeader.flags(m) | SrdHeader.FLAG_RETRANSMISSION);
            int ipTotal = m.getShortBE(FrameLayout.IPV4_OFFSET + 2) & 0xFFFF;
            fixUdpChecksum(ipTotal - FrameLayout.IPV4_LENGTH);
        }
        return finish(r, length);
    }

    private int spoofPeer(SplittableRandom r) {
        peerData(r);
        // Someone who knows the peer's address but not its context: its own context id and epoch.
        if (r.nextBoolean()) {
            srcMac = spoofedMac(r);
        }
        srcContext = r.nextInt();
        epoch = nonZero(r);
        anchorNearOrRandom(r);
        qkey = badQkey(r);
        return finish(r, writeData(r));
    }

    private int spoofSource(SplittableRandom r) {
        peerData(r);
        int which = r.nextInt(SPOOFED_IPS.length + 1);
        srcIp = which < SPOOFED_IPS.length ? SPOOFED_IPS[which] : t.victimIp();
        srcMac = spoofedMac(r);
        if (r.nextInt(8) == 0) {
            dstIp = r.nextBoolean() ? t.peerIp() : 0; // not for the victim at all
        }
        srcContext = r.nextInt();
        epoch = nonZero(r);
        anchorNearOrRandom(r);
        qkey = badQkey(r);
        return finish(r, writeData(r));
    }

    private long spoofedMac(SplittableRandom r) {
        return switch (r.nextInt(5)) {
            case 0 -> t.peerMac();
            case 1 -> t.victimMac();
            case 2 -> 0xFFFF_FFFF_FFFFL;
            case 3 -> 0x0100_5E00_0001L;
            default -> 0x0200_0000_0000L | (r.nextLong() & 0xFF_FFFF_FFFFL);
        };
    }

    private int flood(SplittableRandom r) {
        peerData(r);
        srcIp = FLOOD_NET + r.nextInt(FLOOD_ADDRESSES);
        srcMac = 0x0200_0000_0000L | (r.nextLong() & 0xFF_FFFF_FFFFL);
        srcContext = r.nextInt();
        epoch = nonZero(r);
        psn = r.nextInt();
        sendBase = psn - r.nextInt(4);
        qkey = badQkey(r);
        return finish(r, writeData(r));
    }

    // ---------------------------------------------------------------- frame building

    /** Starts a data frame with the live stream's values, peer to victim, as far as they are known. */
    private void peerData(SplittableRandom r) {
        srcMac = t.peerMac();
        dstMac = t.victimMac();
        srcIp = t.peerIp();
        dstIp = t.victimIp();
        srcPort = SrdPort.sourcePort(r.nextInt(16));
        dstPort = t.srdPort();
        version = SrdHeader.VERSION;
        type = PacketType.SEND_WITH_IMM;
        flags = 0;
        boolean known = s.knowsPeerSide();
        // The incarnation the victim follows, once seen: see Sniffed.
        boolean followed = s.knowsFollowedIncarnation();
        srcContext = followed ? s.followedContext() : known ? s.peerContext() : r.nextInt();
        dstContext = s.victimContext();
        epoch = followed ? s.followedEpoch() : known ? s.peerEpoch() : nonZero(r);
        psn = known ? s.peerPsn() : r.nextInt();
        sendBase = known ? s.peerSendBase() : psn;
        srcQpn = known ? s.peerQpn() : t.peerQpn();
        dstQpn = t.victimQpn();
        qkey = t.victimQkey();
        payload = 1 + r.nextInt(Math.min(t.mtu(), 256));
        payloadField = -1;
    }

    /** The ACK's addresses and ids: from the peer to the victim, naming the real contexts and echoing the victim's epoch. */
    private void ackDefaults(SplittableRandom r) {
        peerData(r);
        type = PacketType.ACK;
        srcContext = s.peerContext() != 0 ? s.peerContext() : r.nextInt();
        dstContext = s.victimContext() != 0 ? s.victimContext() : r.nextInt();
        epoch = s.peerEpoch() != 0 ? s.peerEpoch() : nonZero(r);
    }

    private void fromOtherAddress(SplittableRandom r) {
        srcIp = OTHER_NET + r.nextInt(OTHER_ADDRESSES);
        srcMac = 0x0200_00AD_0000L | (srcIp & 0xFFFF);
        srcContext = r.nextInt();
        dstContext = 0;
        epoch = nonZero(r);
        psn = r.nextInt();
        sendBase = psn;
    }

    /** A send base for a forged context: the stream's real one (as a restarted peer would carry) or anything. */
    private void anchorNearOrRandom(SplittableRandom r) {
        if (r.nextBoolean()) {
            sendBase = s.peerSendBase();
            psn = sendBase + r.nextInt(8);
        } else {
            psn = r.nextInt();
            sendBase = psn - r.nextInt(8);
        }
    }

    private int badQkey(SplittableRandom r) {
        return t.victimQkey() ^ (1 + r.nextInt(Integer.MAX_VALUE));
    }

    private static int nonZero(SplittableRandom r) {
        int v = r.nextInt();
        return v == 0 ? 1 : v;
    }

    /**
     * Writes the data header, the extended header of the type if it has one (an RDMA packet is
     * well-formed, its payload length counting that header; a READ carries no data), and the
     * payload, then the L2-L4 headers with both checksums; returns the frame length.
     */
    private int writeData(SplittableRandom r) {
        int extended = PacketType.extendedHeaderLength(type);
        if (type == PacketType.RDMA_READ) {
            payload = 0;
        }
        m.putByte(FrameLayout.SRD_OFFSET, (byte) ((version << 4) | (type & 0xF)));
        SrdHeader.flags(m, flags);
        SrdHeader.payloadLength(m, payloadField >= 0 ? payloadField : extended + payload);
        SrdHeader.sourceContext(m, srcContext);
        SrdHeader.destinationContext(m, dstContext);
        SrdHeader.epoch(m, epoch);
        SrdHeader.psn(m, psn);
        SrdHeader.sendBase(m, sendBase);
        SrdHeader.sourceQpn(m, srcQpn & 0xFF_FFFF);
        SrdHeader.destinationQpn(m, dstQpn & 0xFF_FFFF);
        SrdHeader.qkey(m, qkey);
        SrdHeader.immediate(m, r.nextInt());
        SrdHeader.timestamp(m, System.nanoTime());
        if (extended == RdmaHeader.LENGTH) {
            RdmaHeader.write(m, r.nextLong(), r.nextInt(), type == PacketType.RDMA_READ ? r.nextInt(1, 1 << 20) : payload, 0);
        } else if (type == PacketType.READ_RESPONSE) {
            ReadResponseHeader.write(m, r.nextInt(), 0, payload, 0);
        }
        for (int i = 0; i < payload; i += 8) {
            long bits = r.nextLong();
            for (int b = 0; b < 8 && i + b < payload; b++) {
                m.putByte(SrdHeader.PAYLOAD_OFFSET + extended + i + b, (byte) (bits >>> (8 * b)));
            }
        }
        return writeFrame(SrdHeader.LENGTH + extended + payload);
    }

    /** Writes an ACK's fixed part (no drops, no SACK bits) with the current ids and the given cumulative PSN. */
    private void writeAckHeader(int cumulative) {
        m.putByte(FrameLayout.SRD_OFFSET, (byte) ((version << 4) | PacketType.ACK));
        m.putByte(FrameLayout.SRD_OFFSET + 1, (byte) 0);
        SrdAck.dropCount(m, 0);
        SrdAck.sourceContext(m, srcContext);
        SrdAck.destinationContext(m, dstContext);
        SrdAck.epoch(m, epoch);
        SrdAck.cumulativePsn(m, cumulative);
        SrdAck.echoedEpoch(m, s.victimEpoch());
        SrdAck.triggerPsn(m, s.victimPsn());
        m.putIntBE(FrameLayout.SRD_OFFSET + SrdAck.TRIGGER_PSN_OFFSET + 4, 0);
        SrdAck.echoedTimestamp(m, System.nanoTime() - 10_000);
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            SrdAck.sackWord(m, w, 0);
        }
    }

    private int writeFrame(int srdLength) {
        Ipv4UdpFrame.write(m, srcMac, dstMac, srcIp, dstIp, srcPort, dstPort, srdLength, true);
        return m.dataLength();
    }

    /** Marks the frame as the attacker's (a non-zero IPv4 identification) and fixes the IPv4 header checksum. */
    private int finish(SplittableRandom r, int length) {
        m.putShortBE(FrameLayout.IPV4_OFFSET + 4, (short) (0x8000 | r.nextInt(1, 0x8000)));
        m.putShortBE(FrameLayout.IPV4_OFFSET + 10, (short) 0);
        m.putShortBE(FrameLayout.IPV4_OFFSET + 10, (short) Checksums.finish(Checksums.sum(m, FrameLayout.IPV4_OFFSET,
                FrameLayout.IPV4_LENGTH, 0)));
        return length;
    }

    private void fixUdpChecksum(int udpLength) {
        if (udpLength < FrameLayout.UDP_LENGTH || FrameLayout.UDP_OFFSET + udpLength > m.dataLength()) {
            return;
        }
        int src = m.getIntBE(FrameLayout.IPV4_OFFSET + 12);
        int dst = m.getIntBE(FrameLayout.IPV4_OFFSET + 16);
        m.putShortBE(FrameLayout.UDP_OFFSET + 6, (short) 0);
        long pseudo = (src >>> 16) + (src & 0xFFFF) + (dst >>> 16) + (dst & 0xFFFF) + FrameLayout.IP_PROTOCOL_UDP + udpLength;
        int c = Checksums.finish(Checksums.sum(m, FrameLayout.UDP_OFFSET, udpLength, pseudo));
        m.putShortBE(FrameLayout.UDP_OFFSET + 6, (short) (c == 0 ? 0xFFFF : c));
    }
}
