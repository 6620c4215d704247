package io.srdnic.cli;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.sim.AllToAllSimulation;
import io.srdnic.srd.sim.RcOp;
import io.srdnic.srd.sim.Scenario;
import io.srdnic.srd.sim.SimOp;
import io.srdnic.srd.sim.SimReport;
import io.srdnic.srd.sim.SrdSimulation;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic sim}: the real SRD transport on simulated hosts, in virtual time, with seeded faults.
 * Exit status 1 if any message is lost, delivered twice or unfinished.
 */
@Command(name = "sim", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run the SRD transport on simulated hosts with seeded faults, in virtual time.",
        "Without --incast host i sends to host (i+1) mod H; with it, hosts 1..H-1 send to host 0.",
        "Links: --link-gbps each, 2 us per link unless --delay-us, 1 MiB queue; a frame crosses 3 links each way."})
final class SimCommand implements Callable<Integer> {
    @Option(names = {"--hosts", "--nodes"}, defaultValue = "2", description = "Hosts (nodes) (default ${DEFAULT-VALUE}).")
    int hosts;

    @Option(names = "--all-to-all", description = "Every job of every node connected to every job of every other node over --transport "
        + "rc, src or srd; prints per node the QPs, transport contexts, bytes of transport state and set-up time, then sends one "
        + "message (--size, at most 1024 B) from every job to every remote job, each checked.")
    boolean allToAll;

    @Option(names = "--jobs", defaultValue = "1", description = "With --all-to-all: jobs per node (default ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--messages", defaultValue = "100000",
            description = "Messages in total, split evenly over the senders (default ${DEFAULT-VALUE}).")
    long messages;

    @Option(names = "--size", defaultValue = "4096",
            description = "Message size in bytes, at most the SRD MTU 4096 (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--loss", defaultValue = "0", description = "Loss probability per packet per direction on every path.")
    double loss;

    @Option(names = "--dup", defaultValue = "0", description = "Duplication probability per packet per direction on every path.")
    double dup;

    @Option(names = "--reorder", defaultValue = "0", description = "Probability a packet is delayed by up to 10 us more (reordering).")
    double reorder;

    @Option(names = "--delay-us", defaultValue = "2", description = "One-way delay of every link in us (default ${DEFAULT-VALUE}).")
    double delayUs;

    @Option(names = "--jitter-us", defaultValue = "0", description = "Uniform extra delay 0..J us on fabric paths.")
    double jitterUs;

    @Option(names = "--paths", defaultValue = "16", description = "Entropy values per context = fabric paths (default ${DEFAULT-VALUE}).")
    int paths;

    @Option(names = "--blackhole-paths", split = ",", paramLabel = "I,J", description = "Paths that drop everything, both directions.")
    int[] blackholes = new int[0];

    @Option(names = "--incast", description = "Hosts 1..H-1 all send to host 0.")
    boolean incast;

    @Option(names = "--host-stalls", defaultValue = "0", paramLabel = "FRACTION",
        description = "Every host's thread stops for 0.1 to 5 ms at random, this fraction of the time (0.01: 1%%; SRD only).")
    double hostStalls;

    @Option(names = "--link-gbps", defaultValue = "100", description = "Rate of every link in Gbit/s (default ${DEFAULT-VALUE}).")
    double linkGbps;

    @Option(names = "--time-limit-ms", defaultValue = "10000", description = "Virtual-time limit in ms (default ${DEFAULT-VALUE}).")
    double timeLimitMs;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of every random choice (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--transport", paramLabel = "srd|rc|src", defaultValue = "srd",
        description = "srd (default): every host's SRD QP sends; rc: one RC connection between two hosts, host 0 posting the "
            + "messages (up to 32 outstanding, several packets each past the 1024-byte path MTU) and host 1 answering, "
            + "with --ops from send, send-imm, rdma-write, rdma-write-imm, rdma-read, cmp-swap, fetch-add, "
            + "rnr (a send whose receive is posted only after the RNR NAK), each checked; src: with --all-to-all only.")
    String transport;

    @Option(names = "--ops", paramLabel = "OP,OP", defaultValue = "send-imm",
        description = "What the messages do, each sender cycling through the list (default ${DEFAULT-VALUE}): send, send-imm (SRD), "
            + "ud (a UD datagram, may be lost), and sends the responder drops with an indication, completing with its error status: "
            + "bad-dest-qp (to a QPN no QP has), bad-qkey (REMOTE_INVALID_REQUEST), rnr (no receive posted), "
            + "too-long (longer than the receives: REMOTE_OPERATION; needs --size below the MTU); "
            + "and RDMA on the region every host registers: rdma-write, rdma-write-imm (consumes a receive), rdma-read, "
            + "each checked byte for byte (segmented at the MTU less the 24-byte RDMA header).")
    String ops;

    @Option(names = "--pcap", paramLabel = "FILE",
            description = "Write every frame sent on the simulated wire to a pcap file (virtual timestamps).")
    Path pcap;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "Any SRD transport setting (docs/configuration.md), e.g. --set rto-min-us=20.")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--stats", description = "Print the transport's counters (drops by reason, retransmits, ...).")
    boolean stats;

    @Option(names = "--json", description = "Print the result as one JSON object on the last line.")
    boolean json;

    @Override
    public Integer call() {
        Set<Integer> dead = Arrays.stream(blackholes).boxed().collect(Collectors.toSet());
        Scenario links = new Scenario(hosts, messages, size, loss, dup, reorder, Math.round(delayUs * 1000),
            Math.round(jitterUs * 1000), paths, dead, incast, linkGbps, Math.round(timeLimitMs * 1_000_000), seed);
        if (allToAll) {
            AllToAllSimulation.Transport t;
            try {
                t = AllToAllSimulation.Transport.valueOf(transport.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--all-to-all takes --transport rc, src or srd, was " + transport);
            }
            return new SimAllToAll(links, t, jobs, Math.min(size, AllToAllSimulation.PATH_MTU), settings, json, pcap).call();
        }
        if (transport.equalsIgnoreCase("rc")) {
            return new SimRc(links, RcOp.list(ops), settings, pcap).call();
        }
        if (!transport.equalsIgnoreCase("srd")) {
            throw new IllegalArgumentException("--transport is srd or rc, was " + transport);
        }
        Scenario withOps = links.withOps(SimOp.list(ops));
        Scenario scenario = hostStalls > 0 ? withOps.withEvents(withOps.events().withHostStalls(hostStalls)) : withOps;
        System.err.printf(Locale.ROOT, "sim: %d hosts%s, %d messages of %d B (%s), loss %.3f dup %.3f reorder %.3f, %d paths%s, seed %d%n",
            hosts, incast ? " (incast)" : "", messages, size, ops, loss, dup, reorder, paths,
            dead.isEmpty() ? "" : " (blackholed " + dead + ")", seed);
        TransportConfig srd = new TransportConfig();
        settings.forEach(srd::set);
        long start = System.nanoTime();
        SimReport r = SimCapture.run(pcap, wrap -> SrdSimulation.run(scenario, wrap, srd));
        System.err.printf(Locale.ROOT, "sim: done in %.1f s of wall time%n", (System.nanoTime() - start) / 1e9);
        print(r);
        return r.passed() ? 0 : 1;
    }

    private void print(SimReport r) {
        System.out.printf(Locale.ROOT, "messages %d  completed ok %d  completed with error %d %s%n", r.messages(), r.completedOk(),
            r.completedError(), r.completedErrorByStatus().isEmpty() ? "" : r.completedErrorByStatus());
        System.out.printf(Locale.ROOT, "delivered %d  duplicates delivered %d  lost %d  unfinished %d%n", r.delivered(),
            r.duplicatesDelivered(), r.lost(), r.unfinished());
        System.out.printf(Locale.ROOT, "wire drops %d (queue full %d)  retransmits %d  deepest queue %d of %d bytes%n",
            r.droppedPackets(), r.queueDrops(), r.retransmits(), r.maxQueueBytes(), r.queueLimitBytes());
        System.out.printf(Locale.ROOT, "virtual time %d us  goodput %.2f Gbit/s  latency p50 %.1f  p99 %.1f  p99.9 %.1f us%n",
            r.virtualTimeUs(), r.goodputGbps(), r.p50Us(), r.p99Us(), r.p999Us());
        if (stats) {
            r.contextReport().forEach(line -> System.out.println("  " + line));
            r.transportCounters().forEach((k, v) -> {
                if (v != 0) {
                    System.out.printf("  %-40s %d%n", k, v);
                }
            });
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("messages", r.messages());
            m.put("completed_ok", r.completedOk());
            m.put("completed_error", r.completedError());
            m.put("completed_error_by_status", r.completedErrorByStatus());
            m.put("delivered", r.delivered());
            m.put("duplicates_delivered", r.duplicatesDelivered());
            m.put("lost", r.lost());
            m.put("dropped_packets", r.droppedPackets());
            m.put("queue_drops", r.queueDrops());
            m.put("retransmits", r.retransmits());
            m.put("virtual_time_us", r.virtualTimeUs());
            m.put("goodput_gbps", r.goodputGbps());
            m.put("sender_fairness", r.senderFairness());
            m.put("p50_us", r.p50Us());
            m.put("p99_us", r.p99Us());
            m.put("p999_us", r.p999Us());
            m.put("max_queue_bytes", r.maxQueueBytes());
            System.out.println(Json.object(m));
        }
        if (!r.passed()) {
            System.err.printf("sim: FAILED: %d lost, %d delivered twice, %d unfinished, %d successes without delivery%n",
                r.lost(), r.duplicatesDelivered(), r.unfinished(), r.successWithoutDelivery());
        }
    }
}
