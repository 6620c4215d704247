package io.srdnic.cli.perf;

import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.util.function.LongSupplier;

/**
 * ib_send_bw's, ib_write_bw's and ib_read_bw's client: streams {@code warmup + iters} messages —
 * SENDs, RDMA WRITEs into the server's region or RDMA READs of it — round robin over the QPs,
 * keeping up to {@code window} per QP in flight (the SQ depth), every one signaled. On SRD a SEND
 * or WRITE completes when the server's ACK covers it, a READ when its bytes are here; on UD a SEND
 * as it leaves. SENDs are counted where they arrive (the server); the server sees no RDMA, so
 * WRITEs and READs are counted and timed here, by their completions.
 */
final class BandwidthClient implements PerfClient {
    private final PerfEndpoint ep;
    private final LongSupplier clock;
    private final boolean timed;
    private final long total;
    private final long maxInFlight;
    private final Arrivals arrivals;
    private long posted;
    private long completed;
    private long errors;
    private String firstError;

    BandwidthClient(PerfEndpoint ep, LongSupplier clock) {
        this.ep = ep;
        this.clock = clock;
        this.timed = !ep.params.serverReceives();
        this.total = ep.params.total();
        this.maxInFlight = (long) ep.params.window() * ep.qps.length;
        this.arrivals = new Arrivals(ep.params.warmup());
    }

    @Override
    public int doWork() {
        int work = 0;
        int q = ep.qps.length;
        while (posted < total && posted - completed < maxInFlight) {
            int i = (int) (posted % q);
            SendWr wr = ep.sends[i].wrId(posted).immediate((int) posted);
            if (ep.postSend(ep.qps[i], wr, firstError) != 0) {
                break; // this QP's SQ is full: completions first
            }
            posted++;
            work++;
        }
        WorkCompletion[] wcs = ep.wcs;
        int n = ep.cq.poll(wcs);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            boolean receive = PerfEndpoint.isReceive(wc.opcode());
            if (!receive) {
                completed++;
            }
            if (!wc.ok()) {
                if (errors++ == 0) {
                    firstError = wc.statusName() + " (" + WcOpcode.name(wc.opcode()) + ")";
                }
            } else if (receive) {
                ep.repost(wc); // the server sends nothing in this mode, but keep the queue full anyway
            } else {
                arrivals.arrived(wc.wrId());
            }
        }
        if (timed && n > 0) {
            arrivals.polled(clock.getAsLong());
        }
        return work + n;
    }

    @Override
    public boolean done() {
        return completed >= total;
    }

    @Override
    public long total() {
        return total;
    }

    @Override
    public long progress() {
        return completed;
    }

    @Override
    public long sent() {
        return posted;
    }

    @Override
    public long errors() {
        return errors;
    }

    @Override
    public String firstError() {
        return firstError;
    }

    @Override
    public ServerCounts landed(ServerCounts server) {
        return arrivals.over(server);
    }
}
