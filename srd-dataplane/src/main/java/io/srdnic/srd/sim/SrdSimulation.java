package io.srdnic.srd.sim;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.pmd.sim.PathSelector;
import io.srdnic.pmd.sim.SimClock;
import io.srdnic.pmd.sim.SimCounters;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.pmd.sim.UdpSourcePortSelector;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.SrdConfig;
import io.srdnic.srd.transport.SrdCounters;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * Runs the real SRD transport on simulated hosts in virtual time: every host is a
 * {@link SimHost} (transport + one QP) on a {@link SimNetwork}; the driver runs every host's duty
 * cycle, and when none has work jumps the clock to the next network event or transport deadline.
 * Same scenario and seed, same run.
 */
public final class SrdSimulation {
    /** Q_Key every simulated QP uses. */
    static final int QKEY = 0x1111_1111;

    private SrdSimulation() {
    }

    public static SimReport run(Scenario s) {
        return run(s, port -> port, new SrdConfig());
    }

    /**
     * @param wrap   decorates each host's port (a pcap capture, say); identity for none
     * @param config transport configuration shared by all hosts (copied per host by conclude)
     */
    public static SimReport run(Scenario s, Function<SimPort, PacketIo> wrap, SrdConfig config) {
        long linkBps = Math.round(s.linkGbps() * 1e9);
        LinkConfig access = LinkConfig.builder().bitsPerSecond(linkBps).delayNanos(s.delayNanos()).build();
        LinkConfig fabric = LinkConfig.builder().bitsPerSecond(linkBps).delayNanos(s.delayNanos()).jitterNanos(s.jitterNanos())
            .lossProbability(s.loss()).duplicateProbability(s.duplicate()).reorderProbability(s.reorder()).build();
        int frameRoom = Math.max(256, s.size() + SrdConfig.FRAME_OVERHEAD);
        PathSelector entropyToPath = (frame, k) -> {
            int port = UdpSourcePortSelector.udpSourcePort(frame);
            return port < SrdPort.ENTROPY_BASE ? 0 : (port - SrdPort.ENTROPY_BASE) % k;
        };
        SimNetwork.Config netConfig = SimNetwork.Config.builder().accessLink(access).fabricPath(fabric).pathCount(s.paths())
            .poolSize(Math.min(1 << 16, 8192 + 4096 * s.hosts())).dataRoom(frameRoom).rxRingCapacity(8192)
            .pathSelector(entropyToPath).build();
        long perSender = s.messages() / s.senders();
        long remainder = s.messages() % s.senders();
        SplittableRandom seeds = new SplittableRandom(s.seed());
        try (SimNetwork network = new SimNetwork(s.seed(), netConfig); Arena arena = Arena.ofConfined()) {
            for (int p : s.blackholePaths()) {
                network.blackhole(p, true);
            }
            SimHost[] hosts = new SimHost[s.hosts()];
            for (int h = 0; h < hosts.length; h++) {
                SimPort port = network.addHost(SimHost.mac(h));
                hosts[h] = new SimHost(h, wrap.apply(port), config.paths(s.paths()), s, seeds.nextLong(), arena);
            }
            int sender = 0;
            for (int h = 0; h < hosts.length; h++) {
                if (s.isSender(h)) {
                    long quota = perSender + (sender++ < remainder ? 1 : 0);
                    hosts[h].startSending(hosts[s.destinationOf(h)], quota);
                }
            }
            return drive(s, network, hosts, access.queueLimitBytes());
        }
    }

    private static SimReport drive(Scenario s, SimNetwork network, SimHost[] hosts, long queueLimit) {
        SimClock clock = network.clock();
        Histogram latency = new Histogram(3);
        Outcome outcome = new Outcome(latency);
        for (SimHost h : hosts) {
            h.outcome = outcome;
        }
        long expected = s.messages();
        long nextSample = 0;
        while (outcome.completed() < expected && clock.now() < s.timeLimitNanos()) {
            if (outcome.completed() >= nextSample) {
                outcome.sample(network.pool().inUse(), requestsInUse(hosts));
                nextSample += Math.max(1, expected / Outcome.SAMPLES);
            }
            long now = clock.now();
            int work = 0;
            for (SimHost h : hosts) {
                work += h.step(now);
            }
            if (work == 0) {
                long next = network.nextEventTime();
                for (SimHost h : hosts) {
                    next = Math.min(next, h.transport.nextDeadline());
                }
                if (next == Long.MAX_VALUE) {
                    break; // nothing in flight, nothing due: the run cannot progress
                }
                clock.advanceTo(Math.min(Math.max(next, now + 1), s.timeLimitNanos()));
            }
        }
        return report(s, network, hosts, outcome, queueLimit);
    }

    private static List<String> contextReport(SimHost[] hosts) {
        List<String> lines = new java.util.ArrayList<>();
        for (SimHost h : hosts) {
            for (String line : h.transport.contextReport()) {
                lines.add("host " + h.index + " " + line);
            }
        }
        return lines;
    }

    private static int requestsInUse(SimHost[] hosts) {
        int n = 0;
        for (SimHost h : hosts) {
            n += h.transport.requestsInUse();
        }
        return n;
    }

    private static SimReport report(Scenario s, SimNetwork network, SimHost[] hosts, Outcome outcome, long queueLimit) {
        long delivered = 0;
        long duplicates = 0;
        long lost = 0;
        long unfinished = 0;
        long successWithoutDelivery = 0;
        long deliveredButFailed = 0;
        long corrupt = 0;
        long retransmits = 0;
        long contexts = 0;
        Map<String, Long> transport = new LinkedHashMap<>();
        for (SimHost h : hosts) {
            delivered += h.deliveredCount;
            duplicates += h.duplicateDeliveries;
            corrupt += h.corruptDeliveries;
            SrdCounters c = h.transport.counters();
            retransmits += c.txRetransmits;
            contexts += h.transport.contextCount();
            c.snapshot().forEach((k, v) -> transport.merge(k, v, Long::sum));
        }
        for (SimHost h : hosts) {
            if (h.destination == null) {
                continue;
            }
            for (long seq = 0; seq < h.quota; seq++) {
                boolean wasDelivered = h.destination.wasDelivered(h.index, seq);
                int status = h.status(seq);
                if (status == SimHost.NOT_COMPLETED) {
                    unfinished++;
                    if (!wasDelivered) {
                        lost++;
                    }
                } else if (status == WcStatus.SUCCESS && !wasDelivered) {
                    successWithoutDelivery++;
                } else if (status != WcStatus.SUCCESS && wasDelivered) {
                    deliveredButFailed++;
                }
            }
        }
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
        return new SimReport(s.messages(), outcome.ok, outcome.errors, byStatus, delivered, duplicates, lost, unfinished,
            successWithoutDelivery, deliveredButFailed, corrupt, totals.dropped(), totals.queueFull(), retransmits,
            network.clock().now() / 1000, goodput,
            l.getTotalCount() == 0 ? 0 : l.getValueAtPercentile(50) / 1000.0,
            l.getTotalCount() == 0 ? 0 : l.getValueAtPercentile(99) / 1000.0,
            l.getTotalCount() == 0 ? 0 : l.getValueAtPercentile(99.9) / 1000.0,
            network.maxQueueBytes(), queueLimit, contexts, transport, outcome.poolSamples(), outcome.requestSamples(),
            network.pool().inUse(), requestsInUse(hosts), contextReport(hosts));
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
            return java.util.Arrays.stream(poolInUse, 0, samples).boxed().toList();
        }

        List<Integer> requestSamples() {
            return java.util.Arrays.stream(requests, 0, samples).boxed().toList();
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
