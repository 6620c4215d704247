package io.srdnic.cli.perf;

import io.srdnic.cli.pktgen.LatencySummary;
import io.srdnic.cli.pktgen.RoundTrips;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.util.function.LongSupplier;

/**
 * ib_send_lat's, ib_write_lat's and ib_read_lat's client: one message out at a time, round robin
 * over the QPs; the server sends it back (a SEND, or an RDMA WRITE WITH_IMM into this side's region
 * for a WRITE WITH_IMM into its own), or the READ's bytes come back; the time from just before the
 * post to the poll that returns the reply or the READ's completion is one round trip, recorded after
 * the warm-up into an HdrHistogram. The immediate (the work request id for a READ) carries the
 * iteration number, so a late reply is told from the awaited one. With UD a message may be lost:
 * after the timeout the iteration counts as timed out and the next one goes (SRD never needs it: it
 * retransmits).
 */
final class LatencyClient implements PerfClient {
    private final PerfEndpoint ep;
    private final LongSupplier clock;
    private final RoundTrips rounds;
    private final long timeoutNanos;
    private long next;
    private long returned;
    private boolean waiting;
    private long timeouts;
    private long stale;
    private long errors;
    private String firstError;

    LatencyClient(PerfEndpoint ep, LongSupplier clock) {
        this.ep = ep;
        this.clock = clock;
        this.rounds = new RoundTrips(ep.params.iters(), ep.params.warmup(), ep.params.warmupNanos());
        // SRD retransmits and never loses a message: a slow round trip is waited for (the run's time
        // limit and the transport's own timeout still apply); only UD times iterations out.
        this.timeoutNanos = ep.params.transport().reliable ? Long.MAX_VALUE : ep.params.timeoutNanos();
    }

    @Override
    public int doWork() {
        int work = 0;
        if (!waiting && next < rounds.total()) {
            QueuePair qp = ep.qps[(int) (next % ep.qps.length)];
            SendWr wr = ep.sends[(int) (next % ep.qps.length)].wrId(next).immediate((int) next);
            long t = clock.getAsLong();
            rounds.starting(next, t);
            if (ep.postSend(qp, wr, firstError) == 0) {
                rounds.sent(next, t);
                waiting = true;
                work++;
            }
        }
        WorkCompletion[] wcs = ep.wcs;
        int n = ep.cq.poll(wcs);
        if (n > 0) {
            long t = clock.getAsLong();
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                boolean receive = PerfEndpoint.isReceive(wc.opcode());
                if (!wc.ok()) {
                    error(wc);
                    if (!receive && waiting && wc.wrId() == next) {
                        next++; // the ping failed: no reply will come
                        waiting = false;
                    }
                    continue;
                }
                int id;
                if (receive) {
                    ep.repost(wc);
                    id = wc.immediate();
                } else if (wc.opcode() == WcOpcode.RDMA_READ) {
                    id = (int) wc.wrId();
                } else {
                    continue; // a SEND's or WRITE's own completion: unsignaled, so only a failed one comes, handled above
                }
                if (waiting && id == (int) next) {
                    rounds.returned(next, t);
                    returned++;
                    next++;
                    waiting = false;
                } else {
                    stale++;
                }
            }
            work += n;
        } else if (waiting && timeoutNanos != Long.MAX_VALUE && clock.getAsLong() - rounds.sentAt() > timeoutNanos) {
            timeouts++;
            next++;
            waiting = false;
        }
        return work;
    }

    private void error(WorkCompletion wc) {
        if (errors++ == 0) {
            firstError = wc.statusName() + " (" + WcOpcode.name(wc.opcode()) + ")";
        }
    }

    @Override
    public boolean done() {
        return next >= rounds.total() && !waiting;
    }

    @Override
    public long total() {
        return rounds.total();
    }

    @Override
    public long progress() {
        return next;
    }

    @Override
    public long sent() {
        return next;
    }

    @Override
    public long errors() {
        return errors;
    }

    @Override
    public String firstError() {
        return firstError;
    }

    /** Round trips that came back, warm-up included; the rate is the latency summary's, so no arrival times. */
    @Override
    public ServerCounts landed(ServerCounts server) {
        return new ServerCounts(returned, returned - Math.min(returned, rounds.warmup()), 0, 0, server.errors(), server.firstError(),
                server.check());
    }

    /** Round trips made before measuring: at least the asked number, more when the time floor asked for more. */
    long warmup() {
        return rounds.warmup();
    }

    long timeouts() {
        return timeouts;
    }

    long stale() {
        return stale;
    }

    LatencySummary summary() {
        return rounds.summary(timeouts);
    }
}
