package io.srdnic.srd.transport.device;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;

/**
 * A hostile host on the simulated L2 segment: it builds well-formed SRD frames (valid checksums)
 * with whatever field values a test chooses, spoofed addresses included, and sends them through
 * its own port, so they reach the victim exactly as real frames do. Tests in this package may read
 * the live contexts' ids and epochs (an on-path attacker sees them in the headers).
 */
final class Attacker {
    static final long MAC = 0x02_00_00_00_0B_ADL;

    private final SimFabric fabric;
    private final SimPort port;
    private final Arena arena = Arena.ofAuto();
    private final MbufBatch batch = new MbufBatch(arena, 1);
    private final Mbuf view = new Mbuf();

    Attacker(SimFabric fabric) {
        this.fabric = fabric;
        this.port = fabric.network.addHost(MAC);
    }

    /** A data packet (SEND) from {@code srcIp}/{@code srcMac} to host {@code victim}. */
    void data(int victim, int srcIp, long srcMac, int srcContext, int dstContext, int epoch, int psn, int sendBase, int dstQpn,
              int qkey, int payloadLength) {
        packet(PacketType.SEND, 0, victim, srcIp, srcMac, srcContext, dstContext, epoch, psn, sendBase, dstQpn, qkey, payloadLength);
    }

    /** A UD datagram of any data {@code type} (SEND, RDMA_WRITE, ...) from {@code srcIp} to QP {@code dstQpn} of host {@code victim}. */
    void datagram(int victim, int srcIp, int type, int dstQpn, int qkey, int payloadLength) {
        packet(type, SrdHeader.FLAG_UNRELIABLE, victim, srcIp, MAC, 0, 0, 0, 0, 0, dstQpn, qkey, payloadLength);
    }

    /** An RC SEND (ONLY) from {@code srcIp}, QP {@code srcQpn}, to RC QP {@code dstQpn} of host {@code victim}. */
    void rcSend(int victim, int srcIp, int srcQpn, int dstQpn, int psn, int ordinal, int payloadLength) {
        Mbuf m = build(PacketType.SEND, SrdHeader.FLAG_RC | SrdHeader.FLAG_FIRST | SrdHeader.FLAG_LAST, 0, 0, 0, psn, psn, dstQpn,
            ordinal, payloadLength);
        SrdHeader.sourceQpn(m, srcQpn);
        send(m, victim, srcIp, MAC, SrdHeader.LENGTH + payloadLength);
    }

    /** An SRC SEND packet ({@code flags}: its place in the message) naming SRQ {@code srqn}, otherwise as {@link #rcSend}. */
    void srcSend(int victim, int srcIp, int srcQpn, int dstQpn, int psn, int ordinal, int flags, int srqn, int payloadLength) {
        Mbuf m = build(PacketType.SEND, SrdHeader.FLAG_RC | SrdHeader.FLAG_SRC | flags, 0, srqn, 0, psn, psn, dstQpn, ordinal,
            payloadLength);
        SrdHeader.sourceQpn(m, srcQpn);
        send(m, victim, srcIp, MAC, SrdHeader.LENGTH + payloadLength);
    }

    /**
     * An RC ACK from {@code srcIp}, QP {@code srcQpn}, to RC QP {@code dstQpn} of host
     * {@code victim}; {@code naks}: (psn, reason) pairs.
     */
    void rcAck(int victim, int srcIp, int srcQpn, int dstQpn, int cumulative, int... naks) {
        Mbuf m = take();
        SrdHeader.versionAndType(m, PacketType.ACK);
        SrdHeader.flags(m, SrdHeader.FLAG_RC);
        SrdAck.dropCount(m, naks.length / 2);
        SrdAck.sourceContext(m, srcQpn);
        SrdAck.destinationContext(m, dstQpn);
        SrdAck.epoch(m, 0);
        SrdAck.cumulativePsn(m, cumulative);
        SrdAck.echoedEpoch(m, 0);
        SrdAck.triggerPsn(m, cumulative);
        SrdAck.echoedTimestamp(m, 0);
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            SrdAck.sackWord(m, w, 0);
        }
        for (int i = 0; i < naks.length / 2; i++) {
            SrdAck.drop(m, i, naks[2 * i], naks[2 * i + 1]);
        }
        send(m, victim, srcIp, MAC, SrdAck.length(naks.length / 2));
    }

    /**
     * An atomic request of {@code type} with {@code flags} (FLAG_RC for RC, where {@code srcQpn} must
     * be the victim QP's peer) from {@code srcIp}/{@code srcMac} to QP {@code dstQpn} of host
     * {@code victim}, at {@code psn} (also its send base), followed by {@code extra} bytes of data.
     */
    void atomic(int victim, int flags, int srcIp, long srcMac, int srcQpn, int dstQpn, int psn, int type, long address, int rkey,
                long swapOrAdd, long compare, int extra) {
        // SRD: a first contact of a context of its own (id 0xA7, epoch 0x5EED); RC reads neither.
        Mbuf m = build(type, flags, 0xA7, 0, 0x5EED, psn, psn, dstQpn, 0, AtomicHeader.LENGTH + extra);
        SrdHeader.sourceQpn(m, srcQpn);
        AtomicHeader.write(m, address, rkey, swapOrAdd, compare);
        send(m, victim, srcIp, srcMac, SrdHeader.LENGTH + AtomicHeader.LENGTH + extra);
    }

    private void packet(int type, int flags, int victim, int srcIp, long srcMac, int srcContext, int dstContext, int epoch, int psn,
                        int sendBase, int dstQpn, int qkey, int payloadLength) {
        Mbuf m = build(type, flags, srcContext, dstContext, epoch, psn, sendBase, dstQpn, qkey, payloadLength);
        send(m, victim, srcIp, srcMac, SrdHeader.LENGTH + payloadLength);
    }

    /** A frame's SRD header and a payload of 0xEE bytes, not yet sent. */
    private Mbuf build(int type, int flags, int srcContext, int dstContext, int epoch, int psn, int sendBase, int dstQpn, int qkey,
                       int payloadLength) {
        Mbuf m = take();
        SrdHeader.versionAndType(m, type);
        SrdHeader.flags(m, flags);
        SrdHeader.payloadLength(m, payloadLength);
        SrdHeader.sourceContext(m, srcContext);
        SrdHeader.destinationContext(m, dstContext);
        SrdHeader.epoch(m, epoch);
        SrdHeader.psn(m, psn);
        SrdHeader.sendBase(m, sendBase);
        SrdHeader.sourceQpn(m, 1);
        SrdHeader.destinationQpn(m, dstQpn);
        SrdHeader.qkey(m, qkey);
        SrdHeader.immediate(m, 0);
        SrdHeader.timestamp(m, 0);
        for (int i = 0; i < payloadLength; i++) {
            m.putByte(SrdHeader.PAYLOAD_OFFSET + i, (byte) 0xEE);
        }
        return m;
    }

    /** An ACK from {@code srcIp} to host {@code victim}; {@code drops} is pairs of (psn, reason). */
    void ack(int victim, int srcIp, int srcContext, int dstContext, int epoch, int cumulative, int echoedEpoch, long sack0,
             int... drops) {
        Mbuf m = take();
        SrdHeader.versionAndType(m, PacketType.ACK);
        SrdHeader.flags(m, 0);
        SrdAck.dropCount(m, drops.length / 2);
        SrdAck.sourceContext(m, srcContext);
        SrdAck.destinationContext(m, dstContext);
        SrdAck.epoch(m, epoch);
        SrdAck.cumulativePsn(m, cumulative);
        SrdAck.echoedEpoch(m, echoedEpoch);
        SrdAck.triggerPsn(m, cumulative);
        SrdAck.echoedTimestamp(m, 0);
        SrdAck.sackWord(m, 0, sack0);
        for (int w = 1; w < SrdAck.SACK_WORDS; w++) {
            SrdAck.sackWord(m, w, 0);
        }
        for (int i = 0; i < drops.length / 2; i++) {
            SrdAck.drop(m, i, drops[2 * i], drops[2 * i + 1]);
        }
        send(m, victim, srcIp, MAC, SrdAck.length(drops.length / 2));
    }

    private Mbuf take() {
        batch.clear();
        if (port.allocate(batch, 1) != 1) {
            throw new IllegalStateException("the simulated pool is empty");
        }
        return view.wrap(batch.removeAt(0));
    }

    private void send(Mbuf m, int victim, int srcIp, long srcMac, int srdLength) {
        Ipv4UdpFrame.write(m, srcMac, SimFabric.mac(victim), srcIp, SimFabric.ip(victim), SrdPort.ENTROPY_BASE, SrdPort.DEFAULT,
            srdLength, true);
        batch.clear();
        batch.add(m.address());
        port.transmit(batch);
    }

    /** Lets the frames already sent arrive, with the fabric's hosts running. */
    void settle() {
        fabric.runFor(200_000);
    }
}
