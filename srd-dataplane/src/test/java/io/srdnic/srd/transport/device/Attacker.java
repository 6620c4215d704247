package io.srdnic.srd.transport.device;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.srd.testing.FrameForger;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.Arena;
import java.util.Arrays;

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
    private final FrameForger forger = new FrameForger();

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
        ackFields(SrdHeader.FLAG_RC, srcQpn, dstQpn, 0, cumulative, 0, 0);
        sendAck(victim, srcIp, naks);
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
        forger.type = type;
        forger.flags = flags;
        forger.srcContext = srcContext;
        forger.dstContext = dstContext;
        forger.epoch = epoch;
        forger.psn = psn;
        forger.sendBase = sendBase;
        forger.srcQpn = 1;
        forger.dstQpn = dstQpn;
        forger.qkey = qkey;
        forger.writeHeader(m, payloadLength, i -> 0xEE);
        return m;
    }

    /** An ACK from {@code srcIp} to host {@code victim}; {@code drops} is pairs of (psn, reason). */
    void ack(int victim, int srcIp, int srcContext, int dstContext, int epoch, int cumulative, int echoedEpoch, long sack0,
             int... drops) {
        ackFields(0, srcContext, dstContext, epoch, cumulative, echoedEpoch, sack0);
        sendAck(victim, srcIp, drops);
    }

    /** An ACK as {@link #ack} (no drops) that also reports {@code duplicatePsn} received again (a forged DSACK). */
    void duplicateReport(int victim, int srcIp, int srcContext, int dstContext, int epoch, int cumulative, int echoedEpoch, long sack0,
                         int duplicatePsn) {
        ackFields(SrdHeader.FLAG_DUPLICATE, srcContext, dstContext, epoch, cumulative, echoedEpoch, sack0);
        forger.duplicatePsn = duplicatePsn;
        sendAck(victim, srcIp);
    }

    private void ackFields(int flags, int srcContext, int dstContext, int epoch, int cumulative, int echoedEpoch, long sack0) {
        forger.flags = flags;
        forger.srcContext = srcContext;
        forger.dstContext = dstContext;
        forger.epoch = epoch;
        forger.cumulativePsn = cumulative;
        forger.echoedEpoch = echoedEpoch;
        forger.triggerPsn = cumulative;
        forger.echoedTimestamp = 0;
        Arrays.fill(forger.sack, 0);
        forger.sack[0] = sack0;
    }

    /** The ACK of the fields set, with {@code drops}: (psn, reason) pairs, from {@code srcIp} to host {@code victim}. */
    private void sendAck(int victim, int srcIp, int... drops) {
        Mbuf m = take();
        address(victim, srcIp, MAC);
        forger.writeAck(m, drops);
        transmit(m);
    }

    private Mbuf take() {
        batch.clear();
        if (port.allocate(batch, 1) != 1) {
            throw new IllegalStateException("the simulated pool is empty");
        }
        return view.wrap(batch.removeAt(0));
    }

    private void send(Mbuf m, int victim, int srcIp, long srcMac, int srdLength) {
        address(victim, srcIp, srcMac);
        forger.writeL2L4(m, srdLength);
        transmit(m);
    }

    private void address(int victim, int srcIp, long srcMac) {
        forger.addresses(srcMac, srcIp, SimFabric.mac(victim), SimFabric.ip(victim));
    }

    private void transmit(Mbuf m) {
        batch.clear();
        batch.add(m.address());
        port.transmit(batch);
    }

    /** Lets the frames already sent arrive, with the fabric's hosts running. */
    void settle() {
        fabric.runFor(200_000);
    }
}
