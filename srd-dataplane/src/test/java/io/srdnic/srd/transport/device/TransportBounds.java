package io.srdnic.srd.transport.device;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.srd.ContextReport;
import io.srdnic.srd.transport.srd.ReceiveWindow;
import io.srdnic.srd.transport.srd.SrdContext;

/**
 * The bounds a transport's state keeps whatever it receives, checked from outside its package (the
 * receive-path fuzz target checks them after every duty cycle). Each is a promise of
 * docs/security.md — state kept per peer is bounded and nothing a peer sends grows it — or a
 * consequence of one: the send window never holds more than a window of PSNs, the acknowledged
 * point never passes what was sent, and the responder's unconfirmed drops stay few, ordered and
 * within a window of its base. Reads only; allocates nothing.
 */
public final class TransportBounds {
    private TransportBounds() {
    }

    /** The first bound {@code t} breaks, described, or null when it keeps them all. */
    public static String violation(TransportDevice t) {
        TransportConfig config = t.config();
        int window = config.window();
        int live = 0;
        for (int i = 0; i < config.maxContexts(); i++) {
            SrdContext ctx = t.contextAt(i);
            if (ctx == null || ctx.id == 0) {
                continue;
            }
            live++;
            String broken = requester(ctx, window);
            if (broken == null) {
                broken = responder(ctx, window);
            }
            if (broken != null) {
                return "context " + Integer.toHexString(ctx.id) + " with " + ContextReport.ipv4(ctx.remoteIp) + ": " + broken;
            }
        }
        if (live != t.contextCount()) {
            return live + " contexts alive but " + t.contextCount() + " addresses map to one";
        }
        if (t.requestsInUse() > config.maxOutstandingRequests()) {
            return t.requestsInUse() + " requests in use, more than the " + config.maxOutstandingRequests() + " configured";
        }
        return null;
    }

    private static String requester(SrdContext ctx, int window) {
        if (!ctx.hasRequesterState()) {
            return null;
        }
        int span = ctx.sender.nextPsn - ctx.sender.sendBase;
        if (span < 0 || span > window) {
            return "send window spans " + span + " PSNs (window " + window + ")";
        }
        int outstanding = 0;
        for (int psn = ctx.sender.sendBase; psn != ctx.sender.nextPsn; psn++) {
            if (ctx.sender.owner(psn) != ReliableSender.EMPTY) {
                outstanding++;
            }
        }
        if (outstanding != ctx.sender.inflight) {
            return ctx.sender.inflight + " packets counted in flight, " + outstanding + " in the send window";
        }
        int beyondAcked = ctx.sender.nextPsn - ctx.sender.peerCumulative;
        if (beyondAcked < 0 || beyondAcked > window) {
            return "the acknowledged PSN is " + beyondAcked + " behind the next PSN (an ACK may not claim PSNs never sent)";
        }
        if (ctx.pendingCount < 0 || ctx.rnrWaiting < 0) {
            return "negative queue counts: " + ctx.pendingCount + " pending, " + ctx.rnrWaiting + " waiting out RNR";
        }
        return null;
    }

    private static String responder(SrdContext ctx, int window) {
        if (!ctx.rxPeer.started()) {
            return null;
        }
        ReceiveWindow rx = ctx.rx;
        int drops = rx.pendingDrops();
        if (drops > ReceiveWindow.MAX_PENDING_DROPS) {
            return drops + " unconfirmed drops held, more than " + ReceiveWindow.MAX_PENDING_DROPS;
        }
        for (int i = 0; i < drops; i++) {
            int psn = rx.pendingDropPsn(i);
            int fromBase = psn - rx.base();
            if (fromBase < -window || fromBase >= window) {
                return "an unconfirmed drop at PSN " + psn + " lies " + fromBase + " from the receive base";
            }
            if (i > 0 && psn - rx.pendingDropPsn(i - 1) <= 0) {
                return "unconfirmed drops out of PSN order";
            }
        }
        return null;
    }
}
