package io.srdnic.srd.transport.srd;

import io.srdnic.srd.api.TransportConfig;
import java.util.function.IntConsumer;

/**
 * SRD's answer to an RNR drop indication (the responder had no receive posted): the request waits
 * out a backoff that doubles per attempt, then goes back to the head of its context's queue under
 * a new PSN. RC's RNR policy is its completer's ({@code RcCompleter}).
 */
public final class SrdRnrWaits {
    private final SendRequests requests;
    private final ContextTable contexts;
    private final ActiveContexts active;
    private final TransportConfig config;
    private final RnrWaitList waiting;
    private final IntConsumer afterBackoff = this::afterBackoff;

    public SrdRnrWaits(SendRequests requests, ContextTable contexts, ActiveContexts active, TransportConfig config) {
        this.requests = requests;
        this.contexts = contexts;
        this.active = active;
        this.config = config;
        this.waiting = new RnrWaitList(requests);
    }

    /** Request {@code r} of {@code ctx} was refused for want of a receive: it goes again after a backoff that doubles per attempt. */
    void waitOut(SrdContext ctx, int r, long now) {
        int attempt = requests.qp[r].rnrRetry - requests.rnrLeft[r];
        requests.rnrLeft[r]--;
        requests.state[r] = SendRequests.RNR_WAIT;
        waiting.add(r, now + (config.rnrBackoffNanos() << Math.min(attempt, 10)));
        ctx.rnrWaiting++;
    }

    /** Request {@code r} ends while waiting out an RNR backoff. */
    void stop(SrdContext ctx, int r) {
        waiting.remove(r);
        ctx.rnrWaiting--;
    }

    /** When the first backoff ends (Long.MAX_VALUE when none waits). */
    public long earliest() {
        return waiting.earliest();
    }

    /** Every request whose backoff is over by {@code now} goes again; returns how many. */
    public int resumeDue(long now) {
        return waiting.earliest() - now <= 0 ? waiting.takeDue(now, afterBackoff) : 0;
    }

    /** A request whose RNR backoff is over goes back to the head of its context's queue. */
    private void afterBackoff(int r) {
        SrdContext ctx = contexts.at(requests.context[r]);
        ctx.rnrWaiting--;
        requests.state[r] = SendRequests.PENDING;
        ctx.prependPending(r, requests.next);
        active.add(ctx);
    }
}
