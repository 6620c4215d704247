package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;

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
     * Posts {@code wr} to the transport's send queue of {@code qp} at once, on the transport's
     * thread (the caller drives the context: its lcore), after every check {@link QueuePair#postSend}
     * makes: those that throw VerbsException (a QP not in RTS, an XRC misuse, an address handle
     * missing, destroyed or of another PD; INLINE on a READ or over max_inline_data, an atomic's
     * inline data or misaligned address) and those that complete with a status on the QP's send CQ
     * (an opcode the QP type cannot carry, SGE lengths whose sum overflows, too many SGEs, an SGE
     * outside a region of the QP's PD, an atomic's length). INLINE bytes, and an SRD or UD send's
     * several SGEs, are gathered into the QP's staging slot first. 0, or {@link QueuePair#ENOMEM}
     * when the send queue is full. No post slot in between: {@link TransportPost}.
     */
    public static int postSend(QueuePair qp, SendWr wr) {
        return ((EmbeddedQp) qp.ops).postSend(wr, qp.checkSend(wr), true);
    }

    /**
     * Posts {@code wr} to the transport's SRQ behind {@code srq} at once, on the transport's thread,
     * after the checks {@link SharedReceiveQueue#postSrqRecv} makes (the SRQ alive, the SGE inside a
     * region of its PD, by its lkey, with LOCAL_WRITE; a refused one throws VerbsException): 0, or
     * {@link QueuePair#ENOMEM} while max_wr receives wait (the count the verbs call keeps).
     */
    public static int postSrqReceive(SharedReceiveQueue srq, RecvWr wr) {
        srq.checkAlive();
        srq.pd.checkReceiveBuffer(wr.sge);
        return ((EmbeddedSrq) srq.ops).postRecv(wr, true);
    }

    /**
     * The next async event of {@code context}'s transport, or null: those its cycles raised (each
     * cycle hands them on), without running one more as {@link Context#pollAsyncEvent} does — for
     * the caller that runs the cycles itself ({@link #runCycle}).
     */
    public static AsyncEventQueue.AsyncEvent pollAsyncEvent(Context context) {
        return ((EmbeddedProvider) context.provider).dataplane.pollEvent();
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
