package io.srdnic.cli.perf;

import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;

/**
 * ib_send_bw's client: streams {@code warmup + iters} messages round robin over the QPs, keeping
 * up to {@code window} per QP in flight (the SQ depth), every send signaled. On SRD a send completes
 * when the server's ACK covers it; on UD as it leaves. The rate is measured where messages arrive
 * (the server), so what this side counts is what it sent and which sends failed.
 */
final class BandwidthClient implements PerfClient {
    private final PerfEndpoint ep;
    private final long total;
    private final long maxInFlight;
    private long posted;
    private long completed;
    private long errors;
    private String firstError;

    BandwidthClient(PerfEndpoint ep) {
        this.ep = ep;
        this.total = ep.params.total();
        this.maxInFlight = (long) ep.params.window() * ep.qps.length;
    }

    @Override
    public int doWork() {
        int work = 0;
        int q = ep.qps.length;
        while (posted < total && posted - completed < maxInFlight) {
            int i = (int) (posted % q);
            SendWr wr = ep.sends[i].wrId(posted).immediate((int) posted);
            if (ep.qps[i].postSend(wr) != 0) {
                break; // this QP's SQ is full: completions first
            }
            posted++;
            work++;
        }
        WorkCompletion[] wcs = ep.wcs;
        int n = ep.cq.poll(wcs);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if (wc.opcode() == WcOpcode.SEND) {
                completed++;
            }
            if (!wc.ok()) {
                if (errors++ == 0) {
                    firstError = wc.statusName() + " (" + WcOpcode.name(wc.opcode()) + ")";
                }
            } else if (wc.opcode() != WcOpcode.SEND) {
                ep.repost(wc); // the server sends nothing in this mode, but keep the queue full anyway
            }
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
}
