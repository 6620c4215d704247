package io.srdnic.srd.sim;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.HostStalls;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.pmd.sim.PathSelector;
import io.srdnic.pmd.sim.SimClock;
import io.srdnic.pmd.sim.SimCounters;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.pmd.sim.UdpSourcePortSelector;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * Runs the real SRD transport on simulated hosts in virtual time: every host is a
 * {@link SimHost} (transport + its QPs) on a {@link SimNetwork}; the driver runs every host's duty
 * cycle, and when none has work jumps the clock to the next network event or transport deadline.
 * The scenario's {@link Scenario.Events} fire at seeded points of the run (QP and address-handle
 * destroys, restarts, forged frames); once every send is resolved the run goes on while frames are
 * still in flight, so late duplicates land, and every CQ is drained. A {@link Ledger} follows every
 * message. Same scenario and seed, same run.
 */
public final class SrdSimulation {
    /** Q_Key every simulated QP uses. */
    static final int QKEY = 0x1111_1111;

    private SrdSimulation() {
    }

    public static SimReport run(Scenario s) {
        return run(s, port -> port, new TransportConfig());
    }

    /**
     * @param wrap   decorates each host's port (a pcap capture, say); identity for none
     * @param config transport configuration shared by all hosts (copied per host by conclude)
     */
    public static SimReport run(Scenario s, Function<SimPort, PacketIo> wrap, TransportConfig config) {
        LinkConfig access = accessLink(s);
        LinkConfig fabric = fabricPath(s);
        long lifetime = packetLifetimeNanos(access, fabric);
        TransportConfig hostConfig = config.copy().paths(s.paths()).maxPacketLifetimeNanos(lifetime);
        long idle = s.events().idleContextNanos();
        if (idle > 0) {
            // Contexts are reclaimed only once no retransmission can reach them (TransportConfig's bound):
            // the RTO is capped so that the retry budget fits in the scenario's idle time.
            long rtoMax = Math.min(config.rtoMaxNanos(), (idle - lifetime) / config.retryBudget());
            hostConfig.idleContextNanos(idle).rtoMaxNanos(rtoMax).rtoInitialNanos(Math.min(rtoMax, config.rtoInitialNanos()));
        } else {
            // Slow links hold frames long: the idle time stays above the retransmission lifetime plus what they add.
            hostConfig.idleContextNanos(Math.max(config.idleContextNanos(), config.retransmitLifetimeNanos() + lifetime));
        }
        long perSender = s.messages() / s.senders();
        long remainder = s.messages() % s.senders();
        SplittableRandom seeds = new SplittableRandom(s.seed());
        Outcome outcome = new Outcome(new Histogram(3));
        try (Arena arena = Arena.ofConfined()) {
            SimWorld world = new SimWorld(s, hostConfig, arena, outcome);
            int frameRoom = Math.max(256, Math.max(s.size(), world.tooLongLength) + TransportConfig.FRAME_OVERHEAD);
            try (SimNetwork network = network(s, access, fabric, frameRoom)) {
                world.network = network;
                SimHost[] hosts = new SimHost[s.hosts()];
                for (int h = 0; h < hosts.length; h++) {
                    SimPort port = network.addHost(SimHost.mac(h));
                    hosts[h] = new SimHost(h, wrap.apply(port), world, seeds.nextLong());
                }
                int sender = 0;
                for (int h = 0; h < hosts.length; h++) {
                    if (s.isSender(h)) {
                        long quota = perSender + (sender++ < remainder ? 1 : 0);
                        hosts[h].startSending(hosts[s.destinationOf(h)], quota);
                    }
                }
                Forger forger = s.events().forgedEpochs() == 0 ? null
                    : new Forger(network.addHost(Forger.MAC), arena, s.seed() ^ 0xF0F0_1234L, hostConfig.udpPort());
                return drive(s, network, hosts, world, forger, access.queueLimitBytes());
            }
        }
    }

    /** A host's link to the fabric, as the scenario has it. */
    static LinkConfig accessLink(Scenario s) {
        return LinkConfig.builder().bitsPerSecond(Math.round(s.linkGbps() * 1e9)).delayNanos(s.delayNanos()).build();
    }

    /** A fabric path, with the scenario's faults. */
    static LinkConfig fabricPath(Scenario s) {
        return LinkConfig.builder().bitsPerSecond(Math.round(s.linkGbps() * 1e9)).delayNanos(s.delayNanos()).jitterNanos(s.jitterNanos())
            .lossProbability(s.loss()).duplicateProbability(s.duplicate()).reorderProbability(s.reorder()).build();
    }

    /** The scenario's network: entropy i rides fabric path i, the blackholed paths drop everything. */
    static SimNetwork network(Scenario s, LinkConfig access, LinkConfig fabric, int frameRoom) {
        PathSelector entropyToPath = (frame, k) -> {
            int port = UdpSourcePortSelector.udpSourcePort(frame);
            return port < SrdPort.ENTROPY_BASE ? 0 : (port - SrdPort.ENTROPY_BASE) % k;
        };
        SimNetwork network = new SimNetwork(s.seed(), SimNetwork.Config.builder().accessLink(access).fabricPath(fabric)
            .pathCount(s.paths()).poolSize(Math.min(1 << 16, 8192 + 4096 * s.hosts())).dataRoom(frameRoom).rxRingCapacity(8192)
            .pathSelector(entropyToPath).hostStalls(s.events().hostStallFraction() > 0
                ? HostStalls.of(s.events().hostStallFraction()) : HostStalls.NONE).build());
        for (int p : s.blackholePaths()) {
            network.blackhole(p, true);
        }
        return network;
    }

    /**
     * The longest a frame can take across the simulated network: both access links and a fabric path
     * with full queues, delay and jitter, plus the fabric's reordering hold-back.
     */
    static long packetLifetimeNanos(LinkConfig access, LinkConfig fabric) {
        return 2 * transitNanos(access) + transitNanos(fabric) + fabric.reorderDelayNanos();
    }

    private static long transitNanos(LinkConfig link) {
        return link.queueLimitBytes() * 8_000_000_000L / link.bitsPerSecond() + link.delayNanos() + link.jitterNanos();
    }

    /**
     * A disruption due once {@code afterResolved} sends of the run are resolved (completed, or
     * orphaned by an earlier disruption): spread over the run however fast the hosts post.
     * {@code delayNanos}: how long until the QP or the transport comes back, or the stall lasts.
     */
    record Disruption(Kind kind, int host, long afterResolved, long delayNanos) {
        enum Kind { QP_DESTROY, AH_DESTROY, RESTART, FORGED_EPOCH, STALL }
    }

    /** Longest a destroyed QP takes to come back, and a crashed host to restart: short, so old packets are still in flight. */
    static final long MAX_QP_RECREATE_NANOS = 50_000;
    static final long MAX_RESTART_NANOS = 100_000;
    /** A stall lasts half to three times the context idle time, or this when the scenario keeps the default. */
    static final long STALL_SCALE_NANOS = 10_000_000;
    /** After the last completion the run goes on until the network is quiet, at most this long: late duplicates land. */
    static final long QUIESCE_NANOS = 2_000_000;

    static List<Disruption> disruptions(Scenario s) {
        Scenario.Events e = s.events();
        SplittableRandom r = new SplittableRandom(s.seed() ^ 0x5DEECE66DL);
        List<Disruption> list = new ArrayList<>();
        for (int i = 0; i < e.qpDestroys(); i++) {
            list.add(new Disruption(Disruption.Kind.QP_DESTROY, r.nextInt(s.hosts()), point(s, r), r.nextLong(MAX_QP_RECREATE_NANOS + 1)));
        }
        for (int i = 0; i < e.ahDestroys(); i++) {
            int host = s.incast() ? 1 + r.nextInt(s.hosts() - 1) : r.nextInt(s.hosts());
            list.add(new Disruption(Disruption.Kind.AH_DESTROY, host, point(s, r), 0));
        }
        for (int i = 0; i < e.restarts(); i++) {
            list.add(new Disruption(Disruption.Kind.RESTART, r.nextInt(s.hosts()), point(s, r), r.nextLong(MAX_RESTART_NANOS + 1)));
        }
        long stallScale = e.idleContextNanos() > 0 ? e.idleContextNanos() : STALL_SCALE_NANOS;
        for (int i = 0; i < e.stalls(); i++) {
            long stall = stallScale / 2 + r.nextLong(5 * stallScale / 2);
            list.add(new Disruption(Disruption.Kind.STALL, r.nextInt(s.hosts()), point(s, r), stall));
        }
        for (int i = 0; i < e.forgedEpochs(); i++) {
            int host = s.incast() ? 1 + r.nextInt(s.hosts() - 1) : r.nextInt(s.hosts());
            list.add(new Disruption(Disruption.Kind.FORGED_EPOCH, host, point(s, r), 0));
        }
        list.sort(Comparator.comparingLong(Disruption::afterResolved));
        return list;
    }

    private static long point(Scenario s, SplittableRandom r) {
        return (long) (s.messages() * (0.05 + 0.9 * r.nextDouble()));
    }

    private static SimReport drive(Scenario s, SimNetwork network, SimHost[] hosts, SimWorld world, Forger forger,
                                   long queueLimit) {
        SimClock clock = network.clock();
        Outcome outcome = world.outcome;
        List<Disruption> due = new ArrayList<>(disruptions(s));
        long expected = s.messages();
        long nextSample = 0;
        int applied = 0;
        while (clock.now() < s.timeLimitNanos()) {
            long now = clock.now();
            while (!due.isEmpty() && world.resolved >= due.get(0).afterResolved() && hosts[due.get(0).host()].up()) {
                apply(due.remove(0), hosts, forger, now);
                applied++;
            }
            if (due.isEmpty() && allFinished(hosts)) {
                break;
            }
            if (outcome.completed() >= nextSample) {
                outcome.sample(network.pool().inUse(), requestsInUse(hosts));
                nextSample += Math.max(1, expected / Outcome.SAMPLES);
            }
            int work = 0;
            for (SimHost h : hosts) {
                work += h.step(now);
            }
            if (work == 0 && !advance(network, hosts, now, s.timeLimitNanos())) {
                break; // nothing in flight, nothing due: the run cannot progress
            }
        }
        long end = clock.now();
        // Quiet time: no more posts are due, but duplicates and retransmissions still in flight may yet land.
        long quietUntil = Math.min(s.timeLimitNanos(), end + QUIESCE_NANOS);
        while (clock.now() < quietUntil && network.nextEventTime() != Long.MAX_VALUE) {
            long now = clock.now();
            int work = 0;
            for (SimHost h : hosts) {
                work += h.step(now);
            }
            if (work == 0 && !advance(network, hosts, now, quietUntil)) {
                break;
            }
        }
        for (SimHost h : hosts) {
            h.drain();
        }
        return report(s, network, hosts, world, queueLimit, end, applied);
    }

    private static void apply(Disruption d, SimHost[] hosts, Forger forger, long now) {
        SimHost h = hosts[d.host()];
        switch (d.kind()) {
            case QP_DESTROY -> h.destroyQp(now, d.delayNanos());
            case AH_DESTROY -> {
                if (h.destination != null) {
                    h.destroyAddressHandle(now);
                }
            }
            case RESTART -> h.crash(now, d.delayNanos());
            case FORGED_EPOCH -> forger.forge(h, now);
            case STALL -> h.stall(now, d.delayNanos());
        }
    }

    private static boolean allFinished(SimHost[] hosts) {
        for (SimHost h : hosts) {
            if (!h.finished()) {
                return false;
            }
        }
        return true;
    }

    /** Jumps the clock to the next network event or host deadline; false if there is none. */
    private static boolean advance(SimNetwork network, SimHost[] hosts, long now, long limit) {
        long next = network.nextEventTime();
        for (SimHost h : hosts) {
            next = Math.min(next, h.nextDeadline());
        }
        if (next == Long.MAX_VALUE) {
            return false;
        }
        network.clock().advanceTo(Math.min(Math.max(next, now + 1), limit));
        return true;
    }

    private static List<String> contextReport(SimHost[] hosts) {
        List<String> lines = new ArrayList<>();
        for (SimHost h : hosts) {
            if (h.transport == null) {
                continue;
            }
            for (String line : h.transport.contextReport()) {
                lines.add("host " + h.index + " " + line);
            }
        }
        return lines;
    }

    private static int requestsInUse(SimHost[] hosts) {
        int n = 0;
        for (SimHost h : hosts) {
            if (h.transport != null) {
                n += h.transport.requestsInUse();
            }
        }
        return n;
    }

    private static SimReport report(Scenario s, SimNetwork network, SimHost[] hosts, SimWorld world, long queueLimit, long end,
                                    int applied) {
        Outcome outcome = world.outcome;
        Ledger ledger = world.ledger;
        long retransmits = 0;
        long contexts = 0;
        long recvOverruns = 0;
        long sendOverruns = 0;
        int incarnations = 0;
        Map<String, Long> transport = new LinkedHashMap<>();
        for (SimHost h : hosts) {
            retransmits += h.pastRetransmits;
            h.pastCounters.forEach((k, v) -> transport.merge(k, v, Long::sum));
            if (h.transport != null) {
                SrdCounters c = h.transport.counters();
                retransmits += c.txRetransmits;
                contexts += h.transport.contextCount();
                c.snapshot().forEach((k, v) -> transport.merge(k, v, Long::sum));
            }
            recvOverruns += h.recvCqOverruns + h.overruns(true);
            sendOverruns += h.sendCqOverruns + h.overruns(false);
            incarnations += h.incarnations;
        }
        Set<Integer> explained = s.explainedErrors(world.config.retryBudget());
        Ledger.Totals t = ledger.totals(explained, s.destinationQpsCanVanish());
        Map<String, Long> byStatus = new LinkedHashMap<>();
        for (int st = 1; st < WcStatus.COUNT; st++) {
            if (outcome.byStatus[st] > 0) {
                byStatus.put(WcStatus.name(st), outcome.byStatus[st]);
            }
        }
        SimCounters totals = network.totals();
        long span = outcome.lastCompletion - outcome.firstPost;
        double goodput = span > 0 ? 8.0 * s.size() * outcome.ok / span : 0;
        Histogram l = outcome.latency;
        return new SimReport(s.messages(), outcome.ok, outcome.errors, byStatus, t.delivered, ledger.duplicates, t.lost, t.unfinished,
            t.successWithoutDelivery, t.deliveredButFailed, ledger.corrupt, totals.dropped(), totals.queueFull(), retransmits,
            end / 1000, goodput,
            l.getTotalCount() == 0 ? 0 : l.getValueAtPercentile(50) / 1000.0,
            l.getTotalCount() == 0 ? 0 : l.getValueAtPercentile(99) / 1000.0,
            l.getTotalCount() == 0 ? 0 : l.getValueAtPercentile(99.9) / 1000.0,
            network.maxQueueBytes(), queueLimit, contexts, transport, outcome.poolSamples(), outcome.requestSamples(),
            network.pool().inUse(), requestsInUse(hosts), contextReport(hosts),
            t.deliveredButRefused, t.hostile, t.orphaned + ledger.orphanedCompletions, ledger.misdelivered, ledger.hostileDelivered,
                    t.hostileSucceeded,
            t.unexplainedStatus, ledger.completedTwice, ledger.spurious, ledger.flushViolations, recvOverruns, sendOverruns,
            applied, incarnations - hosts.length, explained.stream().map(WcStatus::name).toList(), List.copyOf(ledger.notes),
            senderFairness(hosts));
    }

    /** Jain's fairness index over the senders' goodputs: (sum x)^2 / (n sum x^2); 1 for equal shares. */
    static double senderFairness(SimHost[] hosts) {
        double sum = 0;
        double squares = 0;
        int n = 0;
        for (SimHost h : hosts) {
            if (h.succeeded > 0 && h.lastSuccess > h.firstPost) {
                double rate = h.succeeded / (double) (h.lastSuccess - h.firstPost);
                sum += rate;
                squares += rate * rate;
                n++;
            }
        }
        return n == 0 ? 0 : sum * sum / (n * squares);
    }

    /** Tallies of send completions over all hosts. */
    static final class Outcome {
        /** Occupancy samples taken over a run, evenly spaced by completed messages. */
        static final int SAMPLES = 20;
        final Histogram latency;
        private final int[] poolInUse = new int[SAMPLES + 1];
        private final int[] requests = new int[SAMPLES + 1];
        private int samples;
        final long[] byStatus = new long[WcStatus.COUNT];
        long ok;
        long errors;
        long firstPost = Long.MAX_VALUE;
        long lastCompletion;

        Outcome(Histogram latency) {
            this.latency = latency;
        }

        long completed() {
            return ok + errors;
        }

        void sample(int pool, int inUse) {
            if (samples < poolInUse.length) {
                poolInUse[samples] = pool;
                requests[samples] = inUse;
                samples++;
            }
        }

        List<Integer> poolSamples() {
            return Arrays.stream(poolInUse, 0, samples).boxed().toList();
        }

        List<Integer> requestSamples() {
            return Arrays.stream(requests, 0, samples).boxed().toList();
        }

        void onPost(long now) {
            firstPost = Math.min(firstPost, now);
        }

        void onCompletion(int status, long postTime, long now) {
            byStatus[status]++;
            if (status == WcStatus.SUCCESS) {
                ok++;
                latency.recordValue(Math.max(0, now - postTime));
            } else {
                errors++;
            }
            lastCompletion = Math.max(lastCompletion, now);
        }
    }
}
