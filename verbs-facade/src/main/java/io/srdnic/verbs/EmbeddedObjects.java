package io.srdnic.verbs;

/**
 * The transport's objects behind the verbs objects of an embedded context, for the dataplane
 * process, whose lcore drives its transports directly: it runs each port's cycle at the pass's
 * time, posts a client's receives to the transport's QP and moves completions from the
 * transport's CQ to the client's ring, without going through this API's per-call plumbing (the
 * checks the dataplane must make of a client's record are still made). As a provider
 * library's {@code to_mqp()}: the object must be of an embedded context, else ClassCastException.
 */
public final class EmbeddedObjects {
    private EmbeddedObjects() {
    }

    /** The transport's CQ behind {@code cq}: what the transport completes into. */
    public static io.srdnic.srd.api.CompletionQueue cq(CompletionQueue cq) { // fully qualified: the facade has one too
        return EmbeddedProvider.ring(cq);
    }

    /**
     * Posts {@code wr} to the transport's receive queue of {@code qp}, after the SGE check
     * {@link QueuePair#postRecv} makes (inside a region of the QP's PD, by its lkey, with
     * LOCAL_WRITE): 0, or {@link QueuePair#ENOMEM} when the queue is full. A refused receive (that
     * SGE, a QP in RESET, one that takes its receives from an SRQ) throws VerbsException, as the
     * verbs call would. In ERROR it is accepted and flushed, as verbs does.
     */
    public static int postReceive(QueuePair qp, RecvWr wr) {
        Sge s = wr.sge;
        qp.pd.checkReceiveBuffer(s);
        try {
            return ((EmbeddedQp) qp.ops).transportQp().postReceive(wr.wrId, s.segment, s.offset, s.length, s.lkey) ? 0 : QueuePair.ENOMEM;
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            throw new VerbsException(e.getMessage());
        }
    }

    /**
     * One duty cycle of {@code context}'s transport (INVOKER) at {@code now}, the caller's time from
     * the device's clock ({@code System.nanoTime} for a DPDK port): what {@link Context#progress}
     * runs — the transport's cycle, its events forwarded, its counters file told — without reading
     * the clock once more. A context on a simulated network steps its world instead (its clock is virtual).
     */
    public static int runCycle(Context context, long now) {
        return ((EmbeddedProvider) context.provider).dataplane.progressAt(now);
    }

    /**
     * The last exception a DEDICATED driver's cycle threw and its agent survived, or null: a defect
     * (nothing an application posts may make a cycle throw), kept for whoever watches the context.
     */
    public static RuntimeException driverFault(Context context) {
        return ((EmbeddedProvider) context.provider).dataplane.lastFault();
    }
}
