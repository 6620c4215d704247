package io.srdnic.srd.sim;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.util.SplittableRandom;

/**
 * A hostile host on the fabric: it sends data frames that claim to come from a real sender (its
 * MAC and IP; SRD has no authentication) to that sender's destination, to a QPN no QP has (so the
 * frame itself is never delivered), as one of two incarnations the sender never had: an earlier
 * one (a stale packet, naming no context of the destination's), or a later one addressed to a
 * context the destination never gave out. A correct responder may drop such a frame, or answer it;
 * it must not let it disturb its state for the real sender — the receive window that makes delivery
 * at most once above all — nor shut the real sender out. (A later incarnation naming no context
 * does shut it out until the context is reclaimed: without authentication that cannot be told from
 * a restart, see docs/security.md; it is not forged here.)
 */
final class Forger {
    /** The attacker's own MAC, which no simulated host has. */
    static final long MAC = 0x02_00_00_00_BA_D0L;

    private final PacketIo port;
    private final MbufBatch batch;
    private final Mbuf view = new Mbuf();
    private final SplittableRandom random;
    private final int udpPort;
    long forged;

    Forger(PacketIo port, Arena arena, long seed, int udpPort) {
        this.port = port;
        this.batch = new MbufBatch(arena, 1);
        this.random = new SplittableRandom(seed);
        this.udpPort = udpPort;
    }

    /** One forged frame "from" {@code victim} to its destination, as an incarnation before or after its own. */
    void forge(SimHost victim, long now) {
        SimHost to = victim.destination;
        if (to == null || port.allocate(batch, 1) != 1) {
            return;
        }
        Mbuf m = view.wrap(batch.address(0));
        boolean earlier = random.nextBoolean();
        int epoch = earlier ? victim.epoch - 1 - random.nextInt(SimHost.RESTART_EPOCH_STEP)
            : victim.epoch + 1 + random.nextInt(SimHost.RESTART_EPOCH_STEP);
        int psn = random.nextInt();
        SrdHeader.versionAndType(m, PacketType.SEND_WITH_IMM);
        SrdHeader.flags(m, 0);
        SrdHeader.payloadLength(m, 0);
        SrdHeader.sourceContext(m, random.nextInt());
        SrdHeader.destinationContext(m, earlier ? 0 : random.nextInt() | 1);
        SrdHeader.epoch(m, epoch);
        SrdHeader.psn(m, psn);
        SrdHeader.sendBase(m, psn);
        SrdHeader.sourceQpn(m, 1);
        SrdHeader.destinationQpn(m, SimHost.ABSENT_QPN);
        SrdHeader.qkey(m, SrdSimulation.QKEY);
        SrdHeader.immediate(m, -1);
        SrdHeader.timestamp(m, now);
        Ipv4UdpFrame.write(m, SimHost.mac(victim.index), SimHost.mac(to.index), SimHost.ip(victim.index), SimHost.ip(to.index),
            SrdPort.ENTROPY_BASE + random.nextInt(16), udpPort, SrdHeader.LENGTH, true);
        port.transmit(batch);
        forged++;
    }
}
