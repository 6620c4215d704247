package io.srdnic.pmd.sim;

/**
 * Sees every {@link SimEvent} of a {@link SimNetwork} as it happens, in the deterministic order the
 * network processes them: for determinism checks, debugging and capture writers.
 * <p>
 * Called on the data path with primitives only; an implementation that must not disturb a
 * zero-allocation run must not allocate either.
 */
@FunctionalInterface
public interface TraceListener {

    /**
     * @param timeNanos   virtual time of the event
     * @param event       what happened
     * @param fromHost    sending host id, or {@link SimNetwork#NO_HOST}
     * @param toHost      receiving host id, {@link SimNetwork#BROADCAST_HOST} before a broadcast fans
     *                    out, or {@link SimNetwork#NO_HOST} when unknown
     * @param path        fabric path, or {@link SimNetwork#NO_PATH} before one is chosen
     * @param frameLength bytes of the frame, Ethernet header included (0 for a refused allocation)
     */
    void onEvent(long timeNanos, SimEvent event, int fromHost, int toHost, int path, int frameLength);
}
