package io.srdnic.cli.perf;

import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.WorkCompletion;
import java.util.function.LongSupplier;

/**
 * The server side's agent. Keeps every receive posted; in latency mode answers each message at
 * once on the QP it came in on, with the same immediate (a SEND, or with --op write an RDMA WRITE
 * WITH_IMM of what arrived into the client's region); in bandwidth mode counts what arrives and
 * times the measured part, from the first message after the warm-up to the last message.
 * With --op read nothing arrives here: the transport answers the client's READs by itself.
 * A reply the send queue cannot take yet waits in a small ring and goes on the next cycle.
 */
final class Responder {
    private final PerfEndpoint ep;
    private final LongSupplier clock;
    private final boolean reply;
    private final boolean receives;
    private final int[] pendingQp = new int[1024];
    private final int[] pendingImm = new int[1024];
    private int pendingHead;
    private int pendingTail;
    private final Arrivals arrivals;
    private long lastWorkAt;
    private long errors;
    private String firstError;

    Responder(PerfEndpoint ep, LongSupplier clock) {
        this.ep = ep;
        this.clock = clock;
        this.reply = ep.params.serverReplies();
        this.receives = ep.params.serverReceives();
        this.arrivals = new Arrivals(ep.params.warmup());
    }

    int doWork() {
        int work = 0;
        while (pendingHead != pendingTail) {
            int slot = pendingHead & (pendingQp.length - 1);
            if (!sendReply(pendingQp[slot], pendingImm[slot])) {
                break;
            }
            pendingHead++;
            work++;
        }
        WorkCompletion[] wcs = ep.wcs;
        int n = ep.cq.poll(wcs);
        if (n == 0) {
            return work;
        }
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if (!wc.ok()) {
                if (errors++ == 0) {
                    firstError = wc.statusName() + " (" + WcOpcode.name(wc.opcode()) + ")";
                }
                continue;
            }
            if (!PerfEndpoint.isReceive(wc.opcode())) {
                continue; // a reply's own completion: replies go unsignaled, so only a failed one comes, counted above
            }
            int imm = wc.immediate();
            int qp = ep.qpIndex(wc.qpNum());
            // The reply first, then the repost and the bookkeeping: they are not the client's to wait for.
            if (reply && (pendingHead != pendingTail || !sendReply(qp, imm))) {
                if (pendingTail - pendingHead == pendingQp.length) {
                    throw new IllegalStateException("more than " + pendingQp.length + " replies waiting for send-queue room");
                }
                int slot = pendingTail++ & (pendingQp.length - 1);
                pendingQp[slot] = qp;
                pendingImm[slot] = imm;
            }
            ep.repost(wc);
            arrivals.arrived(Integer.toUnsignedLong(imm));
        }
        // One clock read per poll, after the replies: the arrival time of this poll's messages.
        long t = clock.getAsLong();
        lastWorkAt = t;
        arrivals.polled(t);
        return work + n;
    }

    private boolean sendReply(int qp, int imm) {
        return ep.postSend(ep.qps[qp], ep.sends[qp].wrId(imm).immediate(imm), firstError) == 0;
    }

    /** Completions with an error status here, and the first one's status and opcode (or null). */
    long errors() {
        return errors;
    }

    String firstError() {
        return firstError;
    }

    long received() {
        return arrivals.count();
    }

    /** Whether messages the client sent ({@code sent} of them) are still to arrive here; never for those that take no receive. */
    boolean awaiting(long sent) {
        return receives && arrivals.count() < sent;
    }

    /** When the last completion came (the clock's time), to tell when a stream has dried up. */
    long lastWorkAt() {
        return lastWorkAt;
    }

    /**
     * What arrived, as the {@code RESULT} line's fields: received, measured and their first and last
     * arrival times, errors; and where RDMA bytes land here, the check of them (made now: call it once
     * the client is done).
     */
    String resultLine() {
        return arrivals.fields() + " errors=" + errors + (firstError == null ? "" : " first_error=" + firstError.replace(' ', '_'))
            + (ep.params.serverChecks() ? " " + ep.checkPayload().fields() : "");
    }
}
