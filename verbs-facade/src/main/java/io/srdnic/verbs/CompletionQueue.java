package io.srdnic.verbs;

import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.attach.CompletionRecord;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.CreateCqRequest;
import io.srdnic.verbs.attach.control.DestroyRequest;
import io.srdnic.verbs.attach.control.HandleReply;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * A completion queue (ibv_cq). {@link #poll} fills a caller-owned array of reusable
 * {@link WorkCompletion}s and allocates nothing; in INVOKER mode it first runs the dataplane's duty
 * cycle. {@link #await} blocks until completions arrive or the time is up.
 */
public final class CompletionQueue implements io.srdnic.srd.api.CompletionQueue.CompletionSink {
    final Context context;
    /** The transport's completion queue; null when attached. */
    final io.srdnic.srd.api.CompletionQueue ring;
    /** Attached: the dataplane's number for this CQ and its completion ring in the shared file; else 0 and null. */
    final int handle;
    private final ShmRing shared;
    private WorkCompletion[] target;
    private int filled;
    private boolean destroyed;

    CompletionQueue(Context context, int depth) {
        this.context = context;
        if (context.session != null) {
            HandleReply r = context.session.request(new CreateCqRequest(depth));
            this.ring = null;
            this.handle = r.handle();
            this.shared = new ShmRing(context.session.rings.asSlice(r.firstRing(), ShmRing.bytes(r.firstCapacity(), CompletionRecord.BYTES)),
                r.firstCapacity(), CompletionRecord.BYTES);
        } else {
            this.ring = new io.srdnic.srd.api.CompletionQueue(depth);
            this.handle = 0;
            this.shared = null;
        }
    }

    /** Polls up to {@code out.length} completions into {@code out}; returns how many. */
    public int poll(WorkCompletion[] out) {
        return poll(out, out.length);
    }

    public int poll(WorkCompletion[] out, int max) {
        if (shared != null) {
            return pollShared(out, Math.min(max, out.length));
        }
        if (ring.size() == 0) {
            context.dataplane.progress();
        } else {
            context.dataplane.transmitPosted();
        }
        return take(out, max);
    }

    /**
     * Takes up to {@code max} completions the transport has already made, running no duty cycle
     * and transmitting nothing: for a loop that runs its contexts' cycles itself, as the attach
     * server does once per pass (a poll would run a whole extra cycle whenever the CQ is empty).
     * Embedded contexts only.
     */
    public int pollCompleted(WorkCompletion[] out, int max) {
        if (shared != null) {
            throw new VerbsException("pollCompleted is for the loop that runs an embedded context; an attached CQ is polled with poll");
        }
        return take(out, max);
    }

    private int take(WorkCompletion[] out, int max) {
        target = out;
        filled = 0;
        ring.poll(this, Math.min(max, out.length));
        target = null;
        return filled;
    }

    /** Attached: completions from the ring the dataplane fills; no syscall, nothing allocated. */
    private int pollShared(WorkCompletion[] out, int max) {
        int n = shared.available();
        if (n == ShmRing.CORRUPT) {
            throw new VerbsException("this CQ's ring in shared memory was overwritten: the context is broken");
        }
        if (n == 0) {
            context.session.checkAlive();
            return 0;
        }
        n = Math.min(n, max);
        MemorySegment s = shared.segment();
        for (int i = 0; i < n; i++) {
            long at = shared.peek(i);
            WorkCompletion wc = out[i];
            wc.wrId = s.get(ValueLayout.JAVA_LONG, at + CompletionRecord.WR_ID);
            wc.status = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.STATUS);
            wc.opcode = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.OPCODE);
            wc.byteLength = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.BYTE_LENGTH);
            wc.hasImmediate = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.HAS_IMMEDIATE) != 0;
            wc.immediate = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.IMMEDIATE);
            wc.qpNum = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.QPN);
            wc.sourceQpn = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.SOURCE_QPN);
            wc.sourceIp = s.get(ValueLayout.JAVA_INT, at + CompletionRecord.SOURCE_IP);
        }
        shared.release(n);
        return n;
    }

    /** Embedded: the send and receive queues of live QPs completing into this CQ (attached, the dataplane counts them). */
    final java.util.concurrent.atomic.AtomicInteger users = new java.util.concurrent.atomic.AtomicInteger();

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
        if (context.session != null) {
            context.session.request(new DestroyRequest(DestroyRequest.CQ, handle)); // refused while a QP completes into it
        }
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

    /** Completions lost because the queue was full when they came (a CQ overrun; attached: never, the dataplane holds them back). */
    public long overruns() {
        return ring == null ? 0 : ring.overruns();
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
