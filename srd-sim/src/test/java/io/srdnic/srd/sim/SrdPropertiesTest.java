package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.fail;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Truthful completions over random, seeded runs of the real transport: a send completes SUCCESS
 * if and only if its message was delivered to a receive completion exactly once — to the QP it was
 * sent to, intact — and otherwise with an error status, under loss, duplication, reordering, dead
 * paths, QP and address-handle destroys, restarts (same seed, later epoch), receive-CQ pressure
 * and overrun, context reclaim, stalled threads, hostile sends (QP-check drops whose ACKs may be
 * lost) and forged frames (see {@link Scenario.Events}). Checked per message by the simulation's ledger:
 * <ul>
 * <li>SUCCESS ⇒ delivered intact to its QP; delivered ⇒ at most once, and only to the QP it was
 *     sent to (never to another QP, a QP created later with the same number, or a restarted host's new QP);
 * <li>delivered ⇒ SUCCESS, unless the sender cannot know: its ACKs lost (REMOTE_UNRESPONSIVE), its
 *     work flushed (WR_FLUSH_ERROR), or the QP gone before the ACK came (BAD_DEST_QP_ERROR where
 *     QPs can vanish) — never a refusal (RNR, Q_Key, length) of a message that was taken;
 * <li>a hostile send (to an absent QPN, with a wrong Q_Key, longer than the receive, to a QP without
 *     receives) is never delivered and never SUCCESS, however its ACKs are lost;
 * <li>every send completes exactly once, unless its QP was destroyed or its host crashed first;
 *     an address handle's destroy completes what was outstanding on it WR_FLUSH_ERROR;
 * <li>every status is explained: a well-formed send SUCCESS and a hostile one its own status
 *     (BAD_DEST_QP_ERROR, REMOTE_INVALID_REQUEST_ERROR, REMOTE_OPERATION_ERROR, RNR_ERROR), or an
 *     error a fault of the scenario can cause ({@link Scenario#explainedErrors}); where no fault can
 *     cause one, every well-formed send succeeds.
 * </ul>
 * The seeds are fixed (1..{@value #CI_SEEDS} in CI; {@code -Psim-long} runs 1..5000), so a failure names a seed
 * that reproduces it: {@code -Dsrdnic.sim.seed-list=17,42} runs just those,
 * {@code -Dsrdnic.sim.seeds=N -Dsrdnic.sim.first-seed=F} runs F..F+N-1. With
 * {@code -Dsrdnic.sim.shrink=true} a failure also reports the simplest scenario, same seed, that
 * still breaks its first property (events, faults, hosts and messages taken away one at a time);
 * {@code -Dsrdnic.sim.shrink=TEXT} shrinks on the first broken property whose name contains TEXT.
 */
class SrdPropertiesTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final int CI_SEEDS = 200;

    static final Set<String> SEED_STATUSES = Set.of("LOCAL_LENGTH_ERROR", "LOCAL_QP_OPERATION_ERROR", "LOCAL_PROTECTION_ERROR",
        "WR_FLUSH_ERROR", "BAD_RESPONSE_ERROR", "REMOTE_INVALID_REQUEST_ERROR", "REMOTE_OPERATION_ERROR", "BAD_DEST_QP_ERROR",
        "RNR_ERROR", WcStatus.name(WcStatus.REMOTE_UNRESPONSIVE));

    static final int RETRY_BUDGET = new TransportConfig().retryBudget();

    static LongStream seeds() {
        String list = System.getProperty("srdnic.sim.seed-list", "").trim();
        if (!list.isEmpty()) {
            return Arrays.stream(list.split(",")).map(String::trim).mapToLong(Long::parseLong);
        }
        long first = Long.getLong("srdnic.sim.first-seed", 1);
        long count = Long.getLong("srdnic.sim.seeds", CI_SEEDS);
        return LongStream.range(first, first + count);
    }

    @TestFactory
    Stream<DynamicTest> everySendIsTruthfulUnderRandomFaultsAndDisruptions() {
        return seeds().mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed,
            () -> check(scenario(seed), "seed " + seed + " (rerun with -Dsrdnic.sim.seed-list=" + seed + ")")));
    }

    // ---- the smallest scenarios found for each way today's runs break the properties (see brokenProperties)

    private static Scenario minimal(int hosts, boolean incast, long messages, int size, double loss, double reorder, long seed,
                                    Scenario.Events events) {
        return new Scenario(hosts, messages, size, loss, 0, reorder, 2_000, 500, 1, Set.of(), incast, 100, 3_000_000_000L, seed, events);
    }

    @Test
    void shouldNotAcknowledgeAMessageWhoseReceiveCompletionACqOverrunLost() {
        // A 4-entry receive CQ polled every 27 us: the fifth message in a poll interval has no room.
        check(minimal(2, false, 12, 922, 0, 0, 15, Scenario.Events.NONE.withRecvCq(4, 26_724)));
    }

    @Test
    void shouldNotDeliverIntoANewQpWhatWasSentToADestroyedQpOfTheSameNumber() {
        check(minimal(2, false, 32, 1235, 0, 0, 10, Scenario.Events.NONE.withQpDestroys(1)));
    }

    @Test
    void shouldNotDeliverIntoARestartedHostsNewQpsWhatWasSentToItsOldIncarnation() {
        check(minimal(2, false, 10, 1134, 0, 0, 7, Scenario.Events.NONE.withRestarts(1)));
    }

    @Test
    void shouldNotLetAFrameUnderAForgedEpochResetTheReceiveWindow() {
        // One forged frame resets the window for the real sender, whose (spurious, reordering) retransmissions are then new again.
        check(minimal(2, false, 150, 1024, 0, 0.35, 1, Scenario.Events.NONE.withForgedEpochs(1)));
    }

    @Test
    void shouldNotForgetWhatWasDeliveredWhileThePeerMayStillRetransmitIt() {
        // Contexts idle for 10 ms are reclaimed, between bursts 15 ms apart, under 30% loss.
        check(minimal(2, false, 75, 256, 0.3, 0, 2, Scenario.Events.NONE.withReclaim(10_000_000, 20, 15_000_000)));
    }

    @Test
    void shouldReportEveryDropIndicationWhenManyArePending() {
        // 30% of sends fail the QP checks: far more drops pending than one ACK carries.
        check(minimal(2, false, 300, 1024, 0.1, 0, 29, Scenario.Events.NONE.withHostile(0.3, 0)));
    }

    @Test
    void shouldNotReclaimAContextWhileASendWaitsOutItsRnrBackoff() {
        check(minimal(2, true, 300, 256, 0, 0, 1, Scenario.Events.NONE.withReclaim(10_000_000, 10, 20_000_000).withHostile(0.2, 7)));
    }

    /** The run of one seed: the network's faults and the disruptions, all drawn from the seed. */
    static Scenario scenario(long seed) {
        SplittableRandom r = new SplittableRandom(seed).split(); // a stream of its own, not the run's
        int hosts = 2 + r.nextInt(3);
        boolean incast = r.nextBoolean();
        int paths = 1 + r.nextInt(16);
        double loss = r.nextInt(10) < 4 ? 0 : r.nextDouble(0.3);
        double duplicate = r.nextInt(10) < 4 ? 0 : r.nextDouble(0.3);
        double reorder = r.nextInt(10) < 4 ? 0 : r.nextDouble(0.6);
        int size = r.nextInt(2049);
        int messages = 50 + r.nextInt(1451);
        Set<Integer> dead = paths > 1 && r.nextInt(4) == 0 ? Set.of(r.nextInt(paths)) : Set.of();
        Scenario.Events e = Scenario.Events.NONE;
        if (r.nextInt(4) == 0) {
            e = e.withQpDestroys(1 + r.nextInt(3));
        }
        if (r.nextInt(4) == 0) {
            e = e.withAhDestroys(1 + r.nextInt(3));
        }
        if (r.nextInt(4) == 0) {
            e = e.withRestarts(1 + r.nextInt(2));
        }
        if (r.nextInt(5) == 0) {
            int[] capacities = {0, 4, 16, 64};
            e = e.withRecvCq(capacities[r.nextInt(capacities.length)], 2_000 + r.nextLong(48_000));
        }
        if (r.nextInt(4) == 0) {
            // Idle 10..20 ms (the simulation fits the retry budget in it); gaps from a quarter of it,
            // the context kept, to twice it, reclaimed on both sides or on one.
            long idle = 10_000_000 + r.nextLong(10_000_000);
            e = e.withReclaim(idle, 20 + r.nextInt(181), idle / 4 + r.nextLong(2 * idle));
        }
        if (r.nextInt(10) < 3) {
            e = e.withHostile(0.01 + r.nextDouble(0.29), r.nextBoolean() ? 0 : 1 + r.nextInt(7));
        }
        if (r.nextInt(5) == 0) {
            e = e.withForgedEpochs(1 + r.nextInt(4));
        }
        if (r.nextInt(5) == 0) {
            e = e.withStalls(1 + r.nextInt(3));
        }
        return new Scenario(hosts, messages, size, loss, duplicate, reorder, 2_000, 500, paths, dead, incast, 100,
            Scenario.DEFAULT_TIME_LIMIT_NANOS, seed, e);
    }

    static void check(Scenario s) {
        check(s, "scenario");
    }

    static void check(Scenario s, String name) {
        SimReport r = SrdSimulation.run(s);
        List<String> broken = brokenProperties(s, r);
        if (!broken.isEmpty()) {
            String minimal = shrinking(broken).map(p -> "\n  minimal (" + p + "): " + shrink(s, p)).orElse("");
            fail(name + "\n  " + s + minimal + "\n  errorFree="
                + s.errorFree(RETRY_BUDGET) + " explained=" + r.explainedErrors() + "\n  broken: " + String.join("\n          ", broken)
                + "\n  completed ok " + r.completedOk() + ", with error " + r.completedError() + " " + r.completedErrorByStatus()
                + ", orphaned " + r.orphaned() + ", hostile " + r.hostileSends() + ", receive CQ overruns " + r.recvCqOverruns()
                + "\n  first violations:\n    " + String.join("\n    ", r.violations()));
        }
    }

    /** Every property the run breaks, with its count; empty when it keeps them all. */
    static List<String> brokenProperties(Scenario s, SimReport r) {
        List<String> broken = new ArrayList<>();
        expectZero(broken, r.successWithoutDelivery(), "SUCCESS without the message delivered intact to its QP");
        expectZero(broken, r.deliveredButRefused(), "delivered, yet completed with a refusal the sender could know was false");
        expectZero(broken, r.duplicatesDelivered(), "delivered more than once");
        expectZero(broken, r.misdelivered(), "delivered into a QP it was not sent to");
        expectZero(broken, r.corruptDeliveries(), "delivered damaged, or not sent by anyone");
        expectZero(broken, r.hostileDelivered(), "a send that must fail the QP checks was delivered");
        expectZero(broken, r.hostileSucceeded(), "a send that must fail the QP checks completed SUCCESS");
        expectZero(broken, r.completedTwice(), "completed twice");
        expectZero(broken, r.spuriousCompletions(), "a completion for no outstanding send");
        expectZero(broken, r.flushViolations(), "outstanding on a destroyed address handle but not WR_FLUSH_ERROR");
        expectZero(broken, r.unfinished(), "never completed (and not orphaned by a QP destroy or a crash)");
        expectZero(broken, r.unexplainedStatus(), "completed with a status neither its kind nor a fault of the scenario explains");
        if (r.completedOk() + r.completedError() + r.orphaned() + r.unfinished() != s.messages()) {
            broken.add("completions do not add up: " + r.completedOk() + " ok + " + r.completedError() + " error + " + r.orphaned()
                + " orphaned + " + r.unfinished() + " unfinished != " + s.messages());
        }
        if (!SEED_STATUSES.containsAll(r.completedErrorByStatus().keySet())) {
            broken.add("statuses outside the seed's list: " + r.completedErrorByStatus());
        }
        if (s.errorFree(RETRY_BUDGET) && r.completedOk() != s.messages() - r.hostileSends()) {
            broken.add("no fault can cause an error, yet " + (s.messages() - r.hostileSends() - r.completedOk())
                + " well-formed sends did not succeed");
        }
        return broken;
    }

    /** The property to shrink on: the first broken, or with -Dsrdnic.sim.shrink=TEXT the first whose name contains TEXT. */
    private static Optional<String> shrinking(List<String> broken) {
        String wanted = System.getProperty("srdnic.sim.shrink", "false");
        if (wanted.equals("false")) {
            return Optional.empty();
        }
        return broken.stream().map(SrdPropertiesTest::property).filter(p -> wanted.equals("true") || p.contains(wanted)).findFirst();
    }

    private static String property(String broken) {
        int colon = broken.lastIndexOf(':');
        return colon < 0 ? broken : broken.substring(0, colon);
    }

    /** The simplest variant of {@code s} (greedily, one simplification at a time) that still breaks {@code property}. */
    static String shrink(Scenario s, String property) {
        Scenario current = s;
        SimReport last = null;
        boolean progress = true;
        while (progress) {
            progress = false;
            for (Scenario c : simpler(current)) {
                SimReport r = SrdSimulation.run(c);
                if (brokenProperties(c, r).stream().anyMatch(b -> property(b).equals(property))) {
                    current = c;
                    last = r;
                    progress = true;
                    break;
                }
            }
        }
        return describe(current) + (last == null ? "" : "\n    violations: " + String.join("\n      ", last.violations().subList(0,
            Math.min(4, last.violations().size()))));
    }

    /** The scenario's fields that differ from a clean 2-host run's, compactly. */
    static String describe(Scenario s) {
        StringBuilder b = new StringBuilder("seed=" + s.seed() + " hosts=" + s.hosts() + (s.incast() ? " incast" : "") + " messages="
            + s.messages() + " size=" + s.size() + " paths=" + s.paths());
        if (!s.blackholePaths().isEmpty()) {
            b.append(" blackhole=").append(s.blackholePaths());
        }
        b.append(String.format(Locale.ROOT, "%s%s%s", s.loss() > 0 ? " loss=" + (float) s.loss() : "",
            s.duplicate() > 0 ? " dup=" + (float) s.duplicate() : "", s.reorder() > 0 ? " reorder=" + (float) s.reorder() : ""));
        String events = s.events().toString();
        for (String field : events.substring(events.indexOf('[') + 1, events.length() - 1).split(", ")) {
            if (!field.endsWith("=0") && !field.endsWith("=0.0")) {
                b.append(' ').append(field);
            }
        }
        return b.toString();
    }

    private static List<Scenario> simpler(Scenario s) {
        Scenario.Events e = s.events();
        List<Scenario> c = new ArrayList<>();
        if (e.restarts() > 0) {
            c.add(s.withEvents(e.withRestarts(e.restarts() - 1)));
        }
        if (e.qpDestroys() > 0) {
            c.add(s.withEvents(e.withQpDestroys(e.qpDestroys() - 1)));
        }
        if (e.ahDestroys() > 0) {
            c.add(s.withEvents(e.withAhDestroys(e.ahDestroys() - 1)));
        }
        if (e.recvCqPressure()) {
            c.add(s.withEvents(e.withRecvCq(0, 0)));
            if (e.recvCqCapacity() > 0 && e.recvPollIntervalNanos() > 0) {
                c.add(s.withEvents(e.withRecvCq(e.recvCqCapacity(), 0)));
                c.add(s.withEvents(e.withRecvCq(0, e.recvPollIntervalNanos())));
            }
        }
        if (e.idleContextNanos() > 0 || e.burstMessages() > 0) {
            c.add(s.withEvents(e.withReclaim(0, 0, 0)));
            c.add(s.withEvents(e.withReclaim(0, e.burstMessages(), e.idleGapNanos())));
        }
        if (e.forgedEpochs() > 0) {
            c.add(s.withEvents(e.withForgedEpochs(e.forgedEpochs() - 1)));
        }
        if (e.stalls() > 0) {
            c.add(s.withEvents(e.withStalls(e.stalls() - 1)));
        }
        if (e.hostileFraction() > 0) {
            c.add(s.withEvents(e.withHostile(0, 0)));
            if (e.rnrRetry() > 0) {
                c.add(s.withEvents(e.withHostile(e.hostileFraction(), 0)));
            }
        }
        if (s.loss() > 0 || s.duplicate() > 0 || s.reorder() > 0) {
            c.add(s.withFaults(0, 0, 0));
            c.add(s.withFaults(0, s.duplicate(), s.reorder()));
            c.add(s.withFaults(s.loss(), 0, s.reorder()));
            c.add(s.withFaults(s.loss(), s.duplicate(), 0));
        }
        if (!s.blackholePaths().isEmpty()) {
            c.add(s.withPaths(s.paths(), Set.of()));
        }
        if (s.paths() > 1 && s.blackholePaths().isEmpty()) {
            c.add(s.withPaths(1, Set.of()));
        }
        if (s.hosts() > 2) {
            c.add(s.withHosts(2, s.incast()));
        }
        if (s.incast()) {
            c.add(s.withHosts(s.hosts(), false));
        }
        if (s.messages() > 1) {
            c.add(s.withMessages(s.messages() / 2));
        }
        c.removeIf(s::equals);
        return c;
    }

    private static void expectZero(List<String> broken, long count, String what) {
        if (count != 0) {
            broken.add(what + ": " + count);
        }
    }
}
