package io.srdnic.srd.transport.srd;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.AckChecks;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.SrdAck;

/**
 * SRD's ACK intake, the requester's half of an SRD context: an ACK from a peer is checked (it must
 * name the context and echo this incarnation's epoch, and name only PSNs that were sent), then its
 * drop indications end the requests they name with the matching status, its cumulative PSN and
 * selective bits complete what they cover, a duplicate it reports may prove a retransmission
 * spurious (and undo the loss episode), and loss detection runs on what is left. RC's intake,
 * per QP, is {@code RcCompleter.onAck}.
 */
public final class SrdAckIntake {
    private final ContextTable contexts;
    private final SrdRequester messages;
    private final SrdCounters counters;
    private final int epoch;
    private final TransportConfig config;
    /** The SACK words of the ACK being handled (read once from the frame). */
    private final long[] sack = new long[SrdAck.SACK_WORDS];

    public SrdAckIntake(ContextTable contexts, SrdRequester messages, SrdCounters counters, int epoch, TransportConfig config) {
        this.contexts = contexts;
        this.messages = messages;
        this.counters = counters;
        this.epoch = epoch;
        this.config = config;
    }

    public void onAck(Mbuf m, long now) {
        counters.rxAcks++;
        SrdContext ctx = contexts.existing(contexts.flowFrom(Ipv4UdpFrame.sourceIp(m)));
        if (ctx == null || !ctx.hasRequesterState() || SrdAck.destinationContext(m) != ctx.id || SrdAck.echoedEpoch(m) != epoch) {
            counters.staleAcks++;
            return;
        }
        ReliableSender sender = ctx.sender;
        int cumulative = SrdAck.cumulativePsn(m);
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            sack[w] = SrdAck.sackWord(m, w); // read once: checked, then acted on
        }
        int drops = SrdAck.dropCount(m);
        if (!AckChecks.namesOnlySentPsns(sender, m, cumulative, sack, drops)) {
            counters.acksRefused++;
            return;
        }
        ctx.lastActivity = now;
        ctx.lastHeard = now;
        sender.onAckTiming(SrdAck.triggerPsn(m), SrdAck.echoedTimestamp(m), now, config.rtoMaxNanos() * 4);
        boolean progress = false;
        for (int i = 0; i < drops; i++) {
            int psn = SrdAck.dropPsn(m, i);
            int r = sender.owner(psn);
            if (r != ReliableSender.EMPTY) {
                sender.forget(psn);
                messages.onDropIndication(ctx, r, SrdAck.dropReason(m, i), now);
                progress = true;
            }
        }
        progress |= sender.onAcknowledged(cumulative, sack, messages);
        if (SrdAck.hasDuplicate(m)) {
            sender.onDuplicateReport(SrdAck.duplicatePsn(m)); // a DSACK: the copy it names was one too many
        }
        sender.advanceSendBase();
        if (progress) {
            sender.lastProgress = now;
            sender.unresponsive = false;
            // Only an ACK that settled something we sent speaks for the peer: one that acknowledges
            // nothing new carries only what is on the wire (our context id, our epoch), and the
            // context it names would readdress our data where the peer refuses all of it.
            ctx.remoteContextId = SrdAck.sourceContext(m);
            ctx.peerEpoch = SrdAck.epoch(m);
        }
        sender.detectLosses(now, messages);
    }
}
