package io.srdnic.srd.sim;

import java.util.List;
import java.util.Map;

/**
 * What a simulated run measured. {@code lost}: messages neither completed nor delivered at the
 * end (a UD datagram, {@link SimOp#UD}, completes as it leaves: one the network loses is not lost
 * here, nor is one it duplicates delivered twice). {@code goodputGbps}: 8 × size × completedOk
 * over the virtual time from first post to last completion. Latencies are post to send completion,
 * in virtual µs. {@code senderFairness}: Jain's index over the senders' own goodputs (each one's
 * successes over its first post to its last success): 1 when all got the same, 1/n when one got
 * all. The occupancy samples (mbufs held anywhere, send requests in the transports) are taken at
 * evenly spaced completion counts.
 * <p>
 * Per message (see {@code Ledger}): {@code delivered} counts well-formed messages delivered intact
 * to the QP they were sent to; {@code successWithoutDelivery} those completed SUCCESS without;
 * {@code duplicatesDelivered} deliveries after a message's first; {@code misdelivered} deliveries
 * into a QP the message was not sent to (another QP, one created later with the same number, a
 * restarted host's new QP); {@code orphaned} sends whose QP was destroyed or whose host crashed
 * before they completed (no completion is owed); {@code unfinished} the others that never completed;
 * {@code unexplainedStatus} completions with a status neither the message's kind nor any fault of
 * the scenario explains ({@code explainedErrors}); {@code deliveredButRefused} messages delivered intact
 * to their QP whose send nonetheless completed with a refusal (a drop status) the sender could have
 * known was false: SUCCESS must hold exactly for the delivered, except where the sender cannot know
 * (its ACKs lost: REMOTE_UNRESPONSIVE; flushed; the QP gone before the ACK came). {@code violations} describes the first few.
 */
public record SimReport(long messages, long completedOk, long completedError, Map<String, Long> completedErrorByStatus,
                        long delivered, long duplicatesDelivered, long lost, long unfinished,
                        long successWithoutDelivery, long deliveredButFailed, long corruptDeliveries,
                        long droppedPackets, long queueDrops, long retransmits, long virtualTimeUs, double goodputGbps,
                        double p50Us, double p99Us, double p999Us, long maxQueueBytes, long queueLimitBytes,
                        long contexts, Map<String, Long> transportCounters, List<Integer> poolInUseSamples,
                        List<Integer> requestsInUseSamples, int poolInUseAtEnd, int requestsInUseAtEnd,
                        List<String> contextReport, long deliveredButRefused,
                        long hostileSends, long orphaned, long misdelivered, long hostileDelivered, long hostileSucceeded,
                        long unexplainedStatus, long completedTwice, long spuriousCompletions, long flushViolations,
                        long recvCqOverruns, long sendCqOverruns, int disruptions, int restarts, List<String> explainedErrors,
                        List<String> violations, double senderFairness) {

    /**
     * The run's own checks: nothing lost, nothing delivered twice, nothing unfinished, nothing
     * inconsistent — no success without delivery, no message in a QP it was not sent to, no hostile
     * message delivered, no completion twice or out of nowhere, no status the scenario's faults do
     * not explain (see {@link Scenario#explainedErrors}).
     */
    public boolean passed() {
        return lost == 0 && duplicatesDelivered == 0 && unfinished == 0 && successWithoutDelivery == 0 && corruptDeliveries == 0
            && safe() && unexplainedStatus == 0;
    }

    /** The safety half of {@link #passed}: whatever completed or was delivered is truthful (liveness aside). */
    public boolean safe() {
        return duplicatesDelivered == 0 && successWithoutDelivery == 0 && deliveredButRefused == 0 && corruptDeliveries == 0
            && misdelivered == 0 && hostileDelivered == 0 && hostileSucceeded == 0 && completedTwice == 0 && spuriousCompletions == 0
            && flushViolations == 0;
    }
}
