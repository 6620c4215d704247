package io.srdnic.srd.transport.srd;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.AckWriter;
import io.srdnic.srd.transport.port.QpTable;
import io.srdnic.srd.transport.port.SendDelivery;
import io.srdnic.srd.transport.port.TransportPort;
import io.srdnic.srd.transport.qp.TransportQp;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;

/**
 * The responder half of a transport: what happens to a data packet that arrives. Transport checks
 * first (context; addressed to this incarnation of our context; the sender's incarnation current or
 * later, never earlier; PSN and send base inside the window; duplicate), then QP checks (the QP
 * exists and can receive, opcode, Q_Key, a receive posted, the message fits, its completion fits
 * the CQ). A message
 * passing both is delivered at once, in arrival order; one failing the QP checks is dropped and
 * answered with a drop indication. (UD datagrams are UdDatagrams', probes PathProbes'.) Runs on the
 * transport's thread, with its buffers.
 * <p>
 * ACKs are coalesced: a context owes one ACK for everything it received in a duty cycle (cumulative
 * PSN and selective bits say which), sent at the next cycle, or at once when it answers
 * {@link TransportConfig#ackEvery} packets. A loss signal is answered in the cycle that saw it, so the
 * sender's RACK hears of it without waiting: a packet past a gap, one that fills a gap, a
 * duplicate, one beyond the window.
 */
public final class SrdResponder {
    /** The selective bits of an ACK that answers from no window: none. */
    private static final AckWriter.SackSource NO_SACK = (cumulative, word) -> 0L;
    /** How far behind the dropped PSN an answer from no window puts its cumulative PSN: behind every sender's base. */
    private static final int UNPROVEN_CUMULATIVE_DISTANCE = 1 << 30;
    private final ContextTable contexts;
    private final SrdCounters counters;
    private final AckWriter acks;
    private final boolean delayedAck;
    private final int ackEvery;
    private final int window;
    private final OwedAcks owed;
    private final SendDelivery delivery;
    private final RdmaDelivery rdma;
    private final SrdRequester messages;
    private final QpTable<? extends TransportQp> qps;

    public SrdResponder(TransportPort port, ContextTable contexts, TransportConfig config, SrdRequester messages, AckWriter acks) {
        this.contexts = contexts;
        this.counters = port.counters;
        this.acks = acks;
        this.delayedAck = config.delayedAck();
        this.ackEvery = config.ackEvery();
        this.window = config.window();
        this.owed = new OwedAcks(config.burst());
        this.delivery = new SendDelivery(port);
        this.rdma = new RdmaDelivery(port, messages);
        this.messages = messages;
        this.qps = port.qps;
    }

    public boolean owesAcks() {
        return owed.count > 0;
    }

    /** Builds and sends (into the transmit batch) the ACKs owed since the last call; returns how many contexts owed one. */
    public int sendOwedAcks() {
        int n = owed.count;
        for (int i = 0; i < n; i++) {
            SrdContext ctx = contexts.at(owed.context[i]);
            // Not by the context's id: a sending half reincarnated meanwhile still owes its ACK.
            // Else answered already this cycle (a loss signal, every-N), or the context was
            // released (which clears it) or reopened (which clears it, and notes itself again).
            if (ctx.ack.owed) {
                sendPendingAck(ctx);
            }
        }
        owed.count = 0;
        return n;
    }

    /** The end of an RX burst: without delayedAck, the ACKs it owes leave in this cycle (one per context still). */
    public void endOfBurst() {
        if (!delayedAck && owed.count > 0) {
            sendOwedAcks();
        }
    }

    public void onData(Mbuf m, int type, long now) {
        counters.rxData++;
        int srcIp = Ipv4UdpFrame.sourceIp(m);
        SrdContext ctx = contexts.openFor(contexts.flowFrom(srcIp), Ipv4UdpFrame.sourceMac(m), now);
        if (ctx == null) {
            return; // no context to hold its state: unacknowledged, the sender retries
        }
        int addressed = SrdHeader.destinationContext(m);
        if (addressed != 0 && addressed != ctx.id) {
            // Meant for an earlier incarnation of our context (reclaimed, or we restarted): what it
            // delivered is forgotten, so taking this up could deliver a message twice.
            counters.staleDestination++;
            return;
        }
        int peerEpoch = SrdHeader.epoch(m);
        int peerContext = SrdHeader.sourceContext(m);
        int psn = SrdHeader.psn(m);
        int sendBase = SrdHeader.sendBase(m);
        if (psn - sendBase < 0 || psn - sendBase >= window) {
            counters.sendBaseRefused++; // no honest sender has a PSN below its base or a window past it
            return;
        }
        if (!ctx.rxPeer.is(peerEpoch, peerContext)) {
            if (!ctx.rxPeer.mayMoveTo(peerEpoch, peerContext)) {
                counters.staleIncarnation++; // a late packet of an incarnation already left, or a forged jump
                return;
            }
            int unproven = incarnationProof(m, type, ctx);
            if (unproven != 0) {
                // Anyone on the segment can send from the peer's address under an incarnation of their
                // own making; following it would refuse the real peer's packets for good. Answered
                // (see answerUnproven), not followed.
                counters.unprovenIncarnation++;
                answerUnproven(m, ctx, psn, unproven, peerContext, peerEpoch, srcIp, now);
                return;
            }
            // First contact, or the peer restarted (later epoch) or re-created its context: its PSNs start afresh.
            if (ctx.rxPeer.started()) {
                counters.peerResets++;
            }
            ctx.ensureResponder();
            ctx.rx.reset(sendBase);
            ctx.rxPeer.moveTo(peerEpoch, peerContext);
            if (peerEpoch == ctx.peerEpoch && addressed == 0) {
                // The peer opened another context for us without restarting (it reclaimed the one
                // our packets name, which would drop them): name this one. Nothing that one
                // delivered can be retransmitted by now, reclaim waits that out. After a restart
                // (another epoch) we keep naming the old one, so that our retransmissions of what
                // the predecessor may have delivered are refused rather than taken up afresh. A
                // reopened (or re-incarnated) context names none of ours (0); a packet that names
                // ours comes from a context that heard from us, and one forged that way must not
                // readdress our packets to a context the peer does not have.
                ctx.remoteContextId = peerContext;
            }
        } else if (sendBase - ctx.rx.base() > window) {
            // Everything up to a send base that far ahead would count as received: refuse the claim.
            counters.sendBaseRefused++;
            return;
        }
        ctx.rxPackets++;
        ctx.lastActivity = now;
        ctx.lastHeard = now;
        ctx.rx.slideTo(sendBase);
        boolean lossSignal = true; // unless an in-order arrival says otherwise
        boolean duplicate = false;
        switch (ctx.rx.classify(psn)) {
            case ReceiveWindow.NEW -> {
                int reason = deliver(m, type, ctx, srcIp);
                if (reason == RdmaDelivery.LATER) {
                    return; // nothing taken: unacknowledged, it comes again
                }
                if (reason != 0) {
                    if (!ctx.rx.canRecordDrop()) {
                        return; // too many unconfirmed drops: leave it unacknowledged, it comes again
                    }
                    ctx.rx.recordDrop(psn, reason);
                    counters.dropsSent[reason]++;
                    ctx.drops++;
                } else {
                    ctx.delivered++;
                    ctx.established = true;
                }
                boolean pastGap = psn != ctx.rx.base();
                ctx.rx.mark(psn);
                lossSignal = pastGap || ctx.rx.base() - psn > 1; // arrived past a gap, or filled one
            }
            case ReceiveWindow.DUPLICATE, ReceiveWindow.OLD -> {
                counters.duplicates++;
                ctx.duplicates++;
                duplicate = true;
            }
            default -> counters.outOfWindow++;
        }
        acknowledge(ctx, psn, peerContext, peerEpoch, SrdHeader.timestamp(m), Ipv4UdpFrame.sourceMac(m), srcIp,
            Ipv4UdpFrame.sourcePort(m), lossSignal, duplicate);
    }

    /**
     * Whether a packet of an incarnation this context does not follow yet shows that its sender may
     * talk to us: 0 when it names an SRD QP of ours and carries its Q_Key (IB's datagram access key),
     * or answers a READ we made to that peer and still wait for; else the DropReason it would get.
     */
    private int incarnationProof(Mbuf m, int type, SrdContext ctx) {
        if (type == PacketType.READ_RESPONSE) {
            return messages.readAnswered(m, ctx) >= 0 ? 0 : DropReason.REMOTE_INVALID_REQUEST;
        }
        TransportQp qp = qps.get(SrdHeader.destinationQpn(m));
        if (qp == null || qp.type != QpType.SRD) {
            return DropReason.BAD_DEST_QP;
        }
        return SrdHeader.qkey(m) == qp.qkey ? 0 : DropReason.REMOTE_INVALID_REQUEST;
    }

    /**
     * Tells an unproven incarnation its packet was dropped, from no context and no window: the ACK
     * names none of our contexts (0), so the peer goes on naming none of ours and takes our id from
     * its next proven packet's answer; its cumulative PSN lies half a window of the circle behind
     * the packet's PSN, below any sender's base whatever the packet claims, so it settles nothing
     * but the drop. At most one answer per context per cycle: a flood of spoofed packets is not
     * reflected packet for packet (an honest sender retransmits, and hears it then).
     */
    private void answerUnproven(Mbuf m, SrdContext ctx, int psn, int reason, int peerContext, int peerEpoch, int srcIp, long now) {
        if (ctx.unprovenAnsweredAt == now) {
            return;
        }
        ctx.unprovenAnsweredAt = now;
        Mbuf a = acks.begin(0, 1, 0, peerContext, psn - UNPROVEN_CUMULATIVE_DISTANCE, peerEpoch, psn, SrdHeader.timestamp(m), NO_SACK);
        if (a == null) {
            return;
        }
        SrdAck.drop(a, 0, psn, reason);
        acks.send(Ipv4UdpFrame.sourceMac(m), srcIp, Ipv4UdpFrame.sourcePort(m));
        counters.dropsSent[reason]++;
        counters.srdAcks++;
    }

    /** Hands a new data packet to the delivery policy of its type; 0, a DropReason, or {@link RdmaDelivery#LATER}. */
    private int deliver(Mbuf m, int type, SrdContext ctx, int srcIp) {
        return switch (type) {
            case PacketType.SEND, PacketType.SEND_WITH_IMM -> {
                int reason = delivery.check(m, type, QpType.SRD);
                yield reason != 0 ? reason : delivery.deliver(m, type, srcIp);
            }
            case PacketType.RDMA_WRITE, PacketType.RDMA_WRITE_WITH_IMM, PacketType.RDMA_READ -> rdma.execute(m, type, ctx);
            case PacketType.READ_RESPONSE -> messages.placeReadResponse(m, ctx);
            default -> DropReason.REMOTE_INVALID_REQUEST;
        };
    }

    /**
     * Notes data packet {@code psn} in the ACK its context owes; the ACK leaves now on a loss signal
     * or once it answers {@code ackEvery} packets, else with the next cycle (or, without delayedAck,
     * at the end of this RX burst). A {@code duplicate} (a copy of a packet received before) is
     * reported in it, as TCP's DSACK, so the sender learns its retransmission was spurious.
     */
    private void acknowledge(SrdContext ctx, int psn, int peerContext, int peerEpoch, long timestamp, long mac, int ip, int port,
                             boolean lossSignal, boolean duplicate) {
        PendingAck ack = ctx.ack;
        if (ack.note(psn, timestamp, peerContext, peerEpoch, mac, ip, port)) {
            if (owed.isFull()) {
                sendOwedAcks();
            }
            owed.add(ctx);
        }
        if (duplicate) {
            ack.noteDuplicate(psn);
        }
        if (lossSignal || ack.packets >= ackEvery) {
            sendPendingAck(ctx);
        }
    }

    /** Sends the ACK {@code ctx} owes, unless the peer incarnation it is owed to has been replaced since. */
    private void sendPendingAck(SrdContext ctx) {
        PendingAck ack = ctx.ack;
        // Else the window now describes the successor's PSNs, and vouching for them to the replaced
        // incarnation could complete its sends undelivered. The sender retries.
        if (ctx.rxPeer.is(ack.peerEpoch, ack.peerContext)) {
            sendAck(ctx, ack);
        }
        ack.clear();
    }

    /** One ACK for everything {@code ctx} received, echoing {@code ack}'s packet: back on the path it came by. */
    private void sendAck(SrdContext ctx, PendingAck ack) {
        ReceiveWindow rx = ctx.rx;
        int drops = Math.min(rx.pendingDrops(), SrdAck.MAX_DROPS);
        Mbuf a = acks.begin(0, drops, ctx.id, ack.peerContext, rx.cumulative(), ack.peerEpoch, ack.psn, ack.timestamp, rx);
        if (a == null) {
            return;
        }
        for (int i = 0; i < drops; i++) {
            SrdAck.drop(a, i, rx.pendingDropPsn(i), rx.pendingDropReason(i));
        }
        if (ack.duplicate) {
            SrdAck.duplicate(a, ack.duplicatePsn);
        }
        acks.send(ack.mac, ack.ip, ack.port);
        counters.srdAcks++;
        counters.srdAckedPackets += ack.packets;
    }
}
