package io.srdnic.cli.adversary;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The attacker's sniffer, as a decorator on the victim's port: it reads the SRD frames the victim
 * receives from its peer and those it sends to it, and keeps the context ids, epochs, PSNs, QPNs and
 * Q_Keys of the live stream ({@link #sniffed()}), and now and then a copy of a data frame the victim
 * received, for replay ({@link #replayFrame}). It changes nothing it passes on.
 * <p>
 * It stands where an on-path attacker (a mirror port, a compromised switch) would listen. It
 * ignores the attacker's own frames, which reach it on a link where they come through the real port
 * (af_xdp): every attack frame carries a non-zero IPv4 identification, a field SRD sets to 0 and
 * never checks. Fields are published with opaque stores, read by the attacker's thread.
 */
public final class WireTap extends ForwardingPacketIo {
    private static final VarHandle FIELDS = MethodHandles.arrayElementVarHandle(int[].class);
    private static final int PEER_CONTEXT = 0;
    private static final int VICTIM_CONTEXT = 1;
    private static final int PEER_EPOCH = 2;
    private static final int VICTIM_EPOCH = 3;
    private static final int PEER_PSN = 4;
    private static final int PEER_SEND_BASE = 5;
    private static final int VICTIM_PSN = 6;
    private static final int VICTIM_SEND_BASE = 7;
    private static final int PEER_QPN = 8;
    private static final int VICTIM_QPN = 9;
    private static final int VICTIM_QKEY = 10;
    private static final int PEER_QKEY = 11;
    private static final int KNOWN = 12;
    private static final int REPLAY_INDEX = 13;
    private static final int FIELD_COUNT = 14;
    private static final int KNOWN_PEER_DATA = 1;
    private static final int KNOWN_PEER_ACK = 2;
    private static final int KNOWN_VICTIM_DATA = 4;
    /** A data frame is copied for replay once in this many. */
    private static final int REPLAY_EVERY = 512;
    public static final int REPLAY_ROOM = 2048;

    private final int[] fields = new int[FIELD_COUNT];
    private final int peerIp;
    private final int victimIp;
    private final int srdPort;
    private final MemorySegment[] replay = new MemorySegment[2];
    private final int[] replayLength = new int[2];
    private long peerDataFrames;
    /** The latest incarnation of the peer its data frames carried: epoch << 32 | context id. */
    private volatile long peerIncarnation;
    /** The latest of those the victim's ACKs answered (0: none yet): the incarnation its responder follows. */
    private volatile long followedIncarnation;

    public WireTap(PacketIo inner, int victimIp, int peerIp, int srdPort) {
        super(inner);
        this.victimIp = victimIp;
        this.peerIp = peerIp;
        this.srdPort = srdPort;
        Arena arena = Arena.ofAuto();
        replay[0] = arena.allocate(REPLAY_ROOM);
        replay[1] = arena.allocate(REPLAY_ROOM);
        FIELDS.setOpaque(fields, REPLAY_INDEX, -1);
    }

    @Override
    public int receive(MbufBatch batch) {
        int n = inner.receive(batch);
        for (int i = 0; i < n; i++) {
            Mbuf m = batch.get(i);
            int type = srdType(m, peerIp, victimIp);
            if (type == PacketType.ACK) {
                if (m.dataLength() >= FrameLayout.SRD_OFFSET + SrdAck.LENGTH) {
                    set(PEER_CONTEXT, SrdAck.sourceContext(m));
                    set(VICTIM_CONTEXT, SrdAck.destinationContext(m));
                    set(PEER_EPOCH, SrdAck.epoch(m));
                    set(VICTIM_EPOCH, SrdAck.echoedEpoch(m));
                    known(KNOWN_PEER_ACK);
                }
            } else if (PacketType.isData(type) && m.dataLength() >= SrdHeader.PAYLOAD_OFFSET) {
                set(PEER_CONTEXT, SrdHeader.sourceContext(m));
                if (SrdHeader.destinationContext(m) != 0) {
                    set(VICTIM_CONTEXT, SrdHeader.destinationContext(m));
                }
                set(PEER_EPOCH, SrdHeader.epoch(m));
                peerIncarnation = incarnation(SrdHeader.epoch(m), SrdHeader.sourceContext(m));
                set(PEER_PSN, SrdHeader.psn(m));
                set(PEER_SEND_BASE, SrdHeader.sendBase(m));
                set(PEER_QPN, SrdHeader.sourceQpn(m));
                set(VICTIM_QPN, SrdHeader.destinationQpn(m));
                set(VICTIM_QKEY, SrdHeader.qkey(m));
                known(KNOWN_PEER_DATA);
                if (peerDataFrames++ % REPLAY_EVERY == 0) {
                    keepForReplay(m);
                }
            }
        }
        return n;
    }

    @Override
    public int transmit(MbufBatch batch) {
        for (int i = 0, n = batch.count(); i < n; i++) {
            Mbuf m = batch.get(i);
            int type = srdType(m, victimIp, peerIp);
            if (type == PacketType.ACK && m.dataLength() >= FrameLayout.SRD_OFFSET + SrdAck.LENGTH) {
                // The victim answers the incarnation it follows; its drops answering forged ones name those, so only an
                // incarnation the peer's own frames carry counts.
                long answered = incarnation(SrdAck.echoedEpoch(m), SrdAck.destinationContext(m));
                if (SrdAck.sourceContext(m) != 0 && answered == peerIncarnation) { // 0: a drop answered from no context
                    followedIncarnation = answered;
                }
            } else if (PacketType.isData(type) && m.dataLength() >= SrdHeader.PAYLOAD_OFFSET) {
                set(VICTIM_CONTEXT, SrdHeader.sourceContext(m));
                if (SrdHeader.destinationContext(m) != 0) {
                    set(PEER_CONTEXT, SrdHeader.destinationContext(m));
                }
                set(VICTIM_EPOCH, SrdHeader.epoch(m));
                set(VICTIM_PSN, SrdHeader.psn(m));
                set(VICTIM_SEND_BASE, SrdHeader.sendBase(m));
                set(PEER_QKEY, SrdHeader.qkey(m));
                known(KNOWN_VICTIM_DATA);
            }
        }
        return inner.transmit(batch);
    }

    /** The SRD type of a well-formed frame of the live stream from {@code src} to {@code dst}; -1 for anything else. */
    private int srdType(Mbuf m, int src, int dst) {
        if (m.segmentCount() != 1 || m.dataLength() < FrameLayout.SRD_OFFSET + 1
            || m.getShortBE(12) != FrameLayout.ETHERTYPE_IPV4 || m.getByte(FrameLayout.IPV4_OFFSET) != 0x45
            || m.getShortBE(FrameLayout.IPV4_OFFSET + 4) != 0 // the attacker's frames carry a non-zero identification
            || Ipv4UdpFrame.sourceIp(m) != src || Ipv4UdpFrame.destinationIp(m) != dst
            || (m.getShortBE(FrameLayout.UDP_OFFSET + 2) & 0xFFFF) != srdPort
            || SrdHeader.version(m) != SrdHeader.VERSION) {
            return -1;
        }
        return SrdHeader.type(m);
    }

    private void keepForReplay(Mbuf m) {
        int length = m.dataLength();
        if (length > REPLAY_ROOM) {
            return;
        }
        int next = ((int) FIELDS.getOpaque(fields, REPLAY_INDEX) + 1) & 1;
        m.copyTo(0, replay[next], 0, length);
        replayLength[next] = length;
        VarHandle.releaseFence();
        FIELDS.setOpaque(fields, REPLAY_INDEX, next);
    }

    /**
     * Copies the latest frame kept for replay into {@code into}; returns its length, or 0 when none is
     * kept yet. (A copy raced by the tap's next keep is at worst a torn frame: still an attack frame.)
     */
    public int replayFrame(MemorySegment into) {
        int index = (int) FIELDS.getOpaque(fields, REPLAY_INDEX);
        if (index < 0) {
            return 0;
        }
        VarHandle.acquireFence();
        int length = replayLength[index];
        MemorySegment.copy(replay[index], 0, into, 0, length);
        return length;
    }

    /** What the tap has learned so far. */
    public Sniffed sniffed() {
        int k = get(KNOWN);
        long followed = followedIncarnation;
        return new Sniffed((k & KNOWN_PEER_DATA) != 0, (k & KNOWN_PEER_ACK) != 0, (k & KNOWN_VICTIM_DATA) != 0, followed != 0,
            get(PEER_CONTEXT), get(VICTIM_CONTEXT), get(PEER_EPOCH), get(VICTIM_EPOCH), get(PEER_PSN), get(PEER_SEND_BASE),
            get(VICTIM_PSN), get(VICTIM_SEND_BASE), get(PEER_QPN), get(VICTIM_QPN), get(VICTIM_QKEY), get(PEER_QKEY),
            (int) (followed >>> 32), (int) followed);
    }

    private static long incarnation(int epoch, int context) {
        return ((long) epoch << 32) | (context & 0xFFFF_FFFFL);
    }

    private void set(int field, int value) {
        FIELDS.setOpaque(fields, field, value);
    }

    private int get(int field) {
        return (int) FIELDS.getOpaque(fields, field);
    }

    private void known(int bit) {
        int k = get(KNOWN);
        if ((k & bit) == 0) {
            set(KNOWN, k | bit);
        }
    }
}
