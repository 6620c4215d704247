package io.srdnic.srd.sim;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.WcStatus;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * One simulated run, as {@code srdnic sim} takes it. {@code messages} is the total, split evenly
 * over the senders: without incast host i sends to host (i+1) mod H; with incast hosts 1..H-1 all
 * send to host 0. {@code paths} is both the entropy count of every context and the number of fabric
 * paths (entropy i rides path i). Loss, duplication and reordering apply per packet per direction on
 * every fabric path. Links run at {@code linkGbps} with the datacenter-like defaults of
 * {@link LinkConfig} (2 µs per link, 1 MiB queue) unless {@code delayNanos} overrides the delay.
 * {@code events} adds seeded disruptions on top (QP and address-handle destroys, restarts, receive
 * CQ pressure, context reclaim, hostile sends): {@link Events#NONE}, the default, adds none.
 * {@code ops} says what each message does, a sender's message i doing {@code ops[i % ops.size()]}
 * ({@link SimOp#DEFAULT}: SEND_WITH_IMM on SRD); a hostile send the events draw takes the place of
 * whatever its message would have done.
 */
public record Scenario(int hosts, long messages, int size, double loss, double duplicate, double reorder,
                       long delayNanos, long jitterNanos, int paths, Set<Integer> blackholePaths, boolean incast,
                       double linkGbps, long timeLimitNanos, long seed, Events events, List<SimOp> ops) {

    public static final long DEFAULT_TIME_LIMIT_NANOS = 10_000_000_000L;
    /**
     * A well-formed send may fail for want of retries only if the chance that one of the run's
     * messages exhausts the retry budget is above this: see {@link #retryBudgetSuffices}.
     */
    public static final double BUDGET_EXHAUSTION_BOUND = 1e-6;

    /** The scenario without events, as {@code srdnic sim} has always taken it. */
    public Scenario(int hosts, long messages, int size, double loss, double duplicate, double reorder, long delayNanos,
                    long jitterNanos, int paths, Set<Integer> blackholePaths, boolean incast, double linkGbps, long timeLimitNanos,
                    long seed) {
        this(hosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths, blackholePaths, incast, linkGbps,
            timeLimitNanos, seed, Events.NONE, SimOp.DEFAULT);
    }

    /** The scenario with events, every message a SEND_WITH_IMM ({@link SimOp#DEFAULT}). */
    public Scenario(int hosts, long messages, int size, double loss, double duplicate, double reorder, long delayNanos,
                    long jitterNanos, int paths, Set<Integer> blackholePaths, boolean incast, double linkGbps, long timeLimitNanos,
                    long seed, Events events) {
        this(hosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths, blackholePaths, incast, linkGbps,
            timeLimitNanos, seed, events, SimOp.DEFAULT);
    }

    public Scenario {
        if (hosts < 2) {
            throw new IllegalArgumentException("--hosts must be at least 2");
        }
        if (messages < 1) {
            throw new IllegalArgumentException("--messages must be at least 1");
        }
        if (size < 0) {
            throw new IllegalArgumentException("--size must not be negative");
        }
        for (double p : new double[] {loss, duplicate, reorder}) {
            if (!(p >= 0 && p < 1)) {
                throw new IllegalArgumentException("probabilities must be in [0, 1): loss, dup, reorder");
            }
        }
        if (paths < 1 || paths > 64) {
            throw new IllegalArgumentException("--paths must be 1..64");
        }
        for (int p : blackholePaths) {
            if (p < 0 || p >= paths) {
                throw new IllegalArgumentException("blackholed path " + p + " is not one of 0.." + (paths - 1));
            }
        }
        if (!(linkGbps > 0) || timeLimitNanos <= 0 || delayNanos < 0 || jitterNanos < 0) {
            throw new IllegalArgumentException("link rate, time limit, delay and jitter must be positive");
        }
        blackholePaths = Set.copyOf(blackholePaths);
        if (events == null) {
            events = Events.NONE;
        }
        if (ops == null || ops.isEmpty()) {
            throw new IllegalArgumentException("--ops must name at least one operation: " + SimOp.labels());
        }
        if (size < 8 && ops.contains(SimOp.SEND)) {
            // Without immediate data the receiver can only tell which message a SEND is by its first 8 bytes.
            throw new IllegalArgumentException("--ops send needs --size 8 or more: a SEND carries its sequence number in its first 8 "
                    + "bytes");
        }
        ops = List.copyOf(ops);
    }

    /** A clean 2-host run: handy base for tests. */
    public static Scenario basic(long messages, int size, long seed) {
        return new Scenario(2, messages, size, 0, 0, 0, LinkConfig.DEFAULT_DELAY_NANOS, 0, 16, Set.of(), false, 100,
            DEFAULT_TIME_LIMIT_NANOS, seed);
    }

    public Scenario withFaults(double newLoss, double newDuplicate, double newReorder) {
        return new Scenario(hosts, messages, size, newLoss, newDuplicate, newReorder, delayNanos, jitterNanos, paths,
            blackholePaths, incast, linkGbps, timeLimitNanos, seed, events, ops);
    }

    public Scenario withHosts(int newHosts, boolean newIncast) {
        return new Scenario(newHosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths,
            blackholePaths, newIncast, linkGbps, timeLimitNanos, seed, events, ops);
    }

    public Scenario withPaths(int newPaths, Set<Integer> newBlackholes) {
        return new Scenario(hosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, newPaths,
            newBlackholes, incast, linkGbps, timeLimitNanos, seed, events, ops);
    }

    public Scenario withSeed(long newSeed) {
        return new Scenario(hosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths,
            blackholePaths, incast, linkGbps, timeLimitNanos, newSeed, events, ops);
    }

    public Scenario withEvents(Events newEvents) {
        return new Scenario(hosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths, blackholePaths, incast,
            linkGbps, timeLimitNanos, seed, newEvents, ops);
    }

    public Scenario withMessages(long newMessages) {
        return new Scenario(hosts, newMessages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths, blackholePaths,
            incast, linkGbps, timeLimitNanos, seed, events, ops);
    }

    public Scenario withTimeLimit(long newTimeLimitNanos) {
        return new Scenario(hosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths, blackholePaths,
            incast, linkGbps, newTimeLimitNanos, seed, events, ops);
    }

    public Scenario withOps(List<SimOp> newOps) {
        return new Scenario(hosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths, blackholePaths, incast,
            linkGbps, timeLimitNanos, seed, events, newOps);
    }

    /** What message {@code seq} of a sender does, before any hostile draw of the events (see {@code SimWorld.kindOf}). */
    SimOp op(long seq) {
        return ops.get((int) (seq % ops.size()));
    }

    /**
     * Whether the retry budget covers this scenario's loss: a transmission fails at worst when its
     * data packet or its ACK is lost on a lossy path ({@code 1 - (1 - loss)^2}) or it rides a
     * blackholed path (at worst {@code dead / paths} of them: a retransmission avoids the path it
     * was lost on, so this overstates); a message fails for want of retries only after
     * {@code retryBudget} failed transmissions in a row. True when that happening to any of the
     * run's messages is at most {@link #BUDGET_EXHAUSTION_BOUND} likely. Duplication never fails a
     * transmission; reordering (a bounded extra delay) costs spurious retransmissions, but the
     * original's ACK still comes within the delay bound, so it is not counted.
     */
    public boolean retryBudgetSuffices(int retryBudget) {
        int dead = blackholePaths.size();
        if (dead >= paths) {
            return false; // a dead peer: nothing gets through
        }
        double lost = 1 - (1 - loss) * (1 - loss);
        double failed = 1 - (1 - lost) * (1 - (double) dead / paths);
        return messages * Math.pow(failed, retryBudget) <= BUDGET_EXHAUSTION_BOUND;
    }

    /**
     * The error statuses a fault of this scenario can make a correct transport report for a
     * well-formed send (right QPN, Q_Key and length, to a QP with receives posted). Empty means no
     * fault can cause an error, and every well-formed send must succeed and every hostile one get
     * exactly its own status:
     * <ul>
     * <li>WR_FLUSH_ERROR: address handles are destroyed under outstanding sends, or a receive CQ
     *     smaller than its receive queue overruns (fatal to its QP, which flushes its sends);
     * <li>BAD_DEST_QP_ERROR: a destination QP is destroyed, goes to ERROR (its receive CQ overran) or
     *     its host restarts while sends to it are in flight;
     * <li>RNR_ERROR: receives are re-posted only as the application polls a pressured receive CQ,
     *     so a QP can run out of them;
     * <li>REMOTE_UNRESPONSIVE: the retry budget does not cover the loss ({@link #retryBudgetSuffices}),
     *     or a peer is down for a while (a restart), or a host's thread stalls (a sender's packets
     *     outlive their retransmission lifetime, a peer's go unanswered), or an RDMA READ's
     *     responder QP goes away mid-answer (its data stops coming).
     * </ul>
     * Not in the list, because they cause no error in a correct transport: context reclaim and idle
     * gaps, duplication, reordering, jitter, one blackholed path of several within the budget, hostile
     * sends (they fail with their own status, see {@code Ledger.EXPECTED}) and forged frames.
     */
    public Set<Integer> explainedErrors(int retryBudget) {
        Set<Integer> s = new TreeSet<>();
        if (events.ahDestroys() > 0 || events.recvCqCanOverrun()) {
            s.add(WcStatus.WR_FLUSH_ERROR);
        }
        if (destinationQpsCanVanish()) {
            s.add(WcStatus.BAD_DEST_QP_ERROR);
        }
        if (events.recvCqPressure()) {
            s.add(WcStatus.RNR_ERROR);
        }
        // A READ whose responder's QP goes away mid-answer hears nothing more: its data stops coming, and it times out.
        boolean readLosesItsResponder = destinationQpsCanVanish() && ops.contains(SimOp.RDMA_READ);
        if (!retryBudgetSuffices(retryBudget) || events.restarts() > 0 || events.stalls() > 0 || readLosesItsResponder) {
            s.add(WcStatus.REMOTE_UNRESPONSIVE);
        }
        return s;
    }

    /**
     * Whether a QP that messages are sent to can go away (destroyed, in ERROR, or its host
     * restarted) between taking a message and its ACK reaching the sender: then a retransmission
     * finds no QP, and a delivered message may complete BAD_DEST_QP_ERROR, the sender unable to know.
     */
    public boolean destinationQpsCanVanish() {
        return events.qpDestroys() > 0 || events.restarts() > 0 || events.recvCqCanOverrun();
    }

    /** No fault of this scenario can cause an error status: see {@link #explainedErrors}. */
    public boolean errorFree(int retryBudget) {
        return explainedErrors(retryBudget).isEmpty();
    }

    /**
     * Seeded disruptions of a run, all off by default. Destroys and restarts fire at random points
     * of the run (by messages posted so far), on random hosts.
     *
     * @param qpDestroys            times a host's QP is destroyed (its unfinished sends end as the transport
     *                              defines: silently or flushed) and a new one created, which the senders
     *                              to that host then use; messages for the old QP must not land in the new
     * @param ahDestroys            times a sender destroys its address handle (its outstanding sends must
     *                              complete WR_FLUSH_ERROR) and creates a new one
     * @param restarts              times a host's transport is replaced by a new incarnation (new epoch,
     *                              new QPs): its unfinished sends die with it
     * @param recvCqCapacity        0: a receive CQ as deep as the receive queue; else this many entries,
     *                              fewer than the receives posted (CQ pressure)
     * @param recvPollIntervalNanos 0: receive CQs are polled every cycle; else at most this often
     * @param idleContextNanos      0: the transport's default; else contexts idle this long are reclaimed
     * @param burstMessages         0: every sender posts as fast as its send queue allows; else in bursts of
     *                              this many, each waiting for the last to complete and then idleGapNanos
     * @param idleGapNanos          the pause between bursts
     * @param hostileFraction       this fraction of sends fail the responder's QP checks on purpose: to a
     *                              QPN that does not exist, with a wrong Q_Key, longer than the posted
     *                              receives, or to a QP without receives (RNR)
     * @param rnrRetry              the QPs' RNR retry count (0, the seed's default: no retries)
     * @param forgedEpochs          times a hostile host on the fabric sends a frame that claims to come
     *                              from a sender, under an epoch the sender never had (see {@code Forger})
     * @param stalls                times a host's thread stops for a while (an application in INVOKER mode
     *                              that does not poll): nothing it sends or reads meanwhile, frames waiting
     *                              in its RX ring; longer than the idle time of a context at times
     * @param hostStallFraction     0: no host stalls; else every host's thread stops for 0.1 to 5 ms at
     *                              random (pmd-driver's {@code HostStalls}), this fraction of the time
     */
    public record Events(int qpDestroys, int ahDestroys, int restarts, int recvCqCapacity, long recvPollIntervalNanos,
                         long idleContextNanos, int burstMessages, long idleGapNanos, double hostileFraction, int rnrRetry,
                         int forgedEpochs, int stalls, double hostStallFraction) {
        public static final Events NONE = new Events(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        public Events {
            if (qpDestroys < 0 || ahDestroys < 0 || restarts < 0 || recvCqCapacity < 0 || recvPollIntervalNanos < 0
                || idleContextNanos < 0 || burstMessages < 0 || idleGapNanos < 0 || forgedEpochs < 0
                || stalls < 0) {
                throw new IllegalArgumentException("event counts, sizes and times must not be negative");
            }
            if (!(hostileFraction >= 0 && hostileFraction < 1)) {
                throw new IllegalArgumentException("the hostile fraction must be in [0, 1)");
            }
            if (!(hostStallFraction >= 0 && hostStallFraction < 1)) {
                throw new IllegalArgumentException("the stalled fraction of time must be in [0, 1)");
            }
            if (rnrRetry < 0 || rnrRetry > 7) {
                throw new IllegalArgumentException("rnr_retry is 0..7");
            }
        }

        /** Whether receives can run out because the application is slow to poll its receive CQ. */
        public boolean recvCqPressure() {
            return recvCqCapacity > 0 || recvPollIntervalNanos > 0;
        }

        /** Whether a receive CQ holds fewer entries than its QP has receives posted, so it can overrun. */
        public boolean recvCqCanOverrun() {
            return recvCqCapacity > 0;
        }

        public Events withQpDestroys(int n) {
            return new Events(n, ahDestroys, restarts, recvCqCapacity, recvPollIntervalNanos, idleContextNanos, burstMessages,
                idleGapNanos, hostileFraction, rnrRetry, forgedEpochs, stalls, hostStallFraction);
        }

        public Events withAhDestroys(int n) {
            return new Events(qpDestroys, n, restarts, recvCqCapacity, recvPollIntervalNanos, idleContextNanos, burstMessages,
                idleGapNanos, hostileFraction, rnrRetry, forgedEpochs, stalls, hostStallFraction);
        }

        public Events withRestarts(int n) {
            return new Events(qpDestroys, ahDestroys, n, recvCqCapacity, recvPollIntervalNanos, idleContextNanos, burstMessages,
                idleGapNanos, hostileFraction, rnrRetry, forgedEpochs, stalls, hostStallFraction);
        }

        public Events withRecvCq(int capacity, long pollIntervalNanos) {
            return new Events(qpDestroys, ahDestroys, restarts, capacity, pollIntervalNanos, idleContextNanos, burstMessages,
                idleGapNanos, hostileFraction, rnrRetry, forgedEpochs, stalls, hostStallFraction);
        }

        public Events withReclaim(long idleNanos, int burst, long gapNanos) {
            return new Events(qpDestroys, ahDestroys, restarts, recvCqCapacity, recvPollIntervalNanos, idleNanos, burst, gapNanos,
                hostileFraction, rnrRetry, forgedEpochs, stalls, hostStallFraction);
        }

        public Events withForgedEpochs(int n) {
            return new Events(qpDestroys, ahDestroys, restarts, recvCqCapacity, recvPollIntervalNanos, idleContextNanos,
                burstMessages, idleGapNanos, hostileFraction, rnrRetry, n, stalls, hostStallFraction);
        }

        public Events withHostile(double fraction, int retries) {
            return new Events(qpDestroys, ahDestroys, restarts, recvCqCapacity, recvPollIntervalNanos, idleContextNanos,
                burstMessages, idleGapNanos, fraction, retries, forgedEpochs, stalls, hostStallFraction);
        }

        public Events withStalls(int n) {
            return new Events(qpDestroys, ahDestroys, restarts, recvCqCapacity, recvPollIntervalNanos, idleContextNanos,
                burstMessages, idleGapNanos, hostileFraction, rnrRetry, forgedEpochs, n, hostStallFraction);
        }

        /** Every host stalls for 0.1 to 5 ms at random, {@code fraction} of the time. */
        public Events withHostStalls(double fraction) {
            return new Events(qpDestroys, ahDestroys, restarts, recvCqCapacity, recvPollIntervalNanos, idleContextNanos,
                burstMessages, idleGapNanos, hostileFraction, rnrRetry, forgedEpochs, stalls, fraction);
        }
    }

    int senders() {
        return incast ? hosts - 1 : hosts;
    }

    int destinationOf(int host) {
        return incast ? 0 : (host + 1) % hosts;
    }

    boolean isSender(int host) {
        return !incast || host != 0;
    }

    /** How many hosts send to {@code host}. */
    int sendersTo(int host) {
        return !incast ? 1 : host == 0 ? hosts - 1 : 0;
    }

    /** Where {@code sender} stands among the hosts that send to its destination (0 .. sendersTo - 1). */
    int rankAtDestination(int sender) {
        return incast ? sender - 1 : 0;
    }
}
