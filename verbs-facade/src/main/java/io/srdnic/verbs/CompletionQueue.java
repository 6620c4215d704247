package io.srdnic.verbs;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion queue (ibv_cq). {@link #poll} fills a caller-owned array of reusable
 * {@link WorkCompletion}s and allocates nothing; in INVOKER mode it first runs the dataplane's duty
 * cycle. {@link #await} blocks until completions arrive or the time is up.
 */
public final class CompletionQueue {
    final Context context;
    /** The provider's CQ: the transport's, or the ring the dataplane process fills. */
    final VerbsProvider.Cq ops;
    private boolean destroyed;

    CompletionQueue(Context context, int depth) {
        this.context = context;
        this.ops = context.provider.createCq(this, depth);
    }

    /** Polls up to {@code out.length} completions into {@code out}; returns how many. */
    public int poll(WorkCompletion[] out) {
        return poll(out, out.length);
    }

    public int poll(WorkCompletion[] out, int max) {
        return ops.poll(out, Math.min(max, out.length));
    }

    /**
     * Takes up to {@code max} completions the transport has already made, running no duty cycle
     * and transmitting nothing: for a loop that runs its contexts' cycles itself, as the attach
     * server does once per pass (a poll would run a whole extra cycle whenever the CQ is empty).
     * Embedded contexts only.
     */
    public int pollCompleted(WorkCompletion[] out, int max) {
        return ops.pollCompleted(out, max);
    }

    /** Embedded: the send and receive queues of live QPs completing into this CQ (attached, the dataplane counts them). */
    final AtomicInteger users = new AtomicInteger();

    /**
     * Destroys the CQ (ibv_destroy_cq): destroy the QPs that complete into it first. Its
     * completions still queued are dropped.
     */
    public synchronized void destroy() {
        if (destroyed) {
            throw new VerbsException("completion queue already destroyed");
        }
        if (users.get() > 0) {
            throw new VerbsException("EBUSY: " + users.get() + " queue(s) of live QPs complete into this CQ: destroy them first");
        }
        ops.destroy(); // attached: the dataplane refuses it too while a QP completes into it
        destroyed = true;
        context.cqDestroyed();
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
            context.idle(spins++);
        }
    }

    /** Completions lost because the queue was full when they came (a CQ overrun; attached: never, the dataplane holds them back). */
    public long overruns() {
        return ops.overruns();
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
