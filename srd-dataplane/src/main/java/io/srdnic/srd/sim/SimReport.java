package io.srdnic.srd.sim;

import java.util.List;
import java.util.Map;

/**
 * What a simulated run measured. {@code lost}: messages neither completed nor delivered at the
 * end. {@code goodputGbps}: 8 × size × completedOk over the virtual time from first post to last
 * completion. Latencies are post to send completion, in virtual µs. The occupancy samples (mbufs
 * held anywhere, send requests in the transports) are taken at evenly spaced completion counts.
 */
public record SimReport(long messages, long completedOk, long completedError, Map<String, Long> completedErrorByStatus,
                        long delivered, long duplicatesDelivered, long lost, long unfinished,
                        long successWithoutDelivery, long deliveredButFailed, long corruptDeliveries,
                        long droppedPackets, long queueDrops, long retransmits, long virtualTimeUs, double goodputGbps,
                        double p50Us, double p99Us, double p999Us, long maxQueueBytes, long queueLimitBytes,
                        long contexts, Map<String, Long> transportCounters, List<Integer> poolInUseSamples,
                        List<Integer> requestsInUseSamples, int poolInUseAtEnd, int requestsInUseAtEnd,
                        List<String> contextReport) {

    /** The run's own checks: nothing lost, nothing delivered twice, nothing unfinished, nothing inconsistent. */
    public boolean passed() {
        return lost == 0 && duplicatesDelivered == 0 && unfinished == 0 && successWithoutDelivery == 0 && corruptDeliveries == 0;
    }
}
