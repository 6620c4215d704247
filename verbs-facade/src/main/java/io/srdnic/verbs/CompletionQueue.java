package io.srdnic.verbs;

import io.srdnic.srd.api.WcOpcode;
import java.util.concurrent.TimeUnit;

/**
 * A completion queue (ibv_cq). {@link #poll} fills a caller-owned array of reusable
 * {@link WorkCompletion}s and allocates nothing; in INVOKER mode it first runs the dataplane's duty
 * cycle. {@link #await} blocks until completions arrive or the time is up.
 */
public final class CompletionQueue implements io.srdnic.srd.api.CompletionQueue.CompletionSink {
    final Context context;
    final io.srdnic.srd.api.CompletionQueue ring;
    private WorkCompletion[] target;
    private int filled;

    CompletionQueue(Context context, int depth) {
        this.context = context;
        this.ring = new io.srdnic.srd.api.CompletionQueue(depth);
    }

    /** Polls up to {@code out.length} completions into {@code out}; returns how many. */
    public int poll(WorkCompletion[] out) {
        return poll(out, out.length);
    }

    public int poll(WorkCompletion[] out, int max) {
        if (ring.size() == 0) {
            context.dataplane.progress();
        } else {
            context.dataplane.transmitPosted();
        }
        target = out;
        filled = 0;
        ring.poll(this, Math.min(max, out.length));
        target = null;
        return filled;
    }

    /**
     * Waits for at least one completion, up to {@code timeout}, then polls as {@link #poll} does.
     * Time is the context's clock: virtual on a simulator.
     */
    public int await(WorkCompletion[] out, long timeout, TimeUnit unit) {
        long deadline = context.now() + unit.toNanos(timeout);
        int spins = 0;
        while (true) {
            int n = poll(out);
            if (n > 0 || context.now() - deadline >= 0) {
                return n;
            }
            context.dataplane.idle(spins++);
        }
    }

    @Override
    public void onCompletion(long wrId, int status, int opcode, int byteLength, boolean hasImmediate, int immediate, int qpn,
                             int sourceQpn, int sourceIp) {
        WorkCompletion wc = target[filled++];
        wc.wrId = wrId;
        wc.status = status;
        wc.opcode = opcode;
        wc.byteLength = byteLength;
        wc.hasImmediate = hasImmediate;
        wc.immediate = immediate;
        wc.qpNum = qpn;
        wc.sourceQpn = sourceQpn;
        wc.sourceIp = sourceIp;
        if (opcode == WcOpcode.RECV || opcode == WcOpcode.RECV_WITH_IMM || opcode == WcOpcode.RECV_RDMA_WITH_IMM) {
            context.receiveConsumed(qpn);
        }
    }

    /** Completions lost because the queue was full when they came (a CQ overrun). */
    public long overruns() {
        return ring.overruns();
    }

    /** Makes an array of reusable completions to poll into. */
    public static WorkCompletion[] array(int n) {
        WorkCompletion[] a = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            a[i] = new WorkCompletion();
        }
        return a;
    }
}
