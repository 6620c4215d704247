package io.srdnic.cli.perf;

import io.srdnic.cli.adversary.Attack;
import io.srdnic.cli.adversary.StreamPayload;
import io.srdnic.cli.net.VethNamespaces;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.verbs.ThreadingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic adversary}: a verified SRD stream between a victim and its peer while an attacker
 * sends forged and malformed frames into the victim's receive path through its real port. Ring runs
 * both sides in this JVM; memif and af_xdp in two child JVMs (af_xdp in two network namespaces
 * joined by a veth pair), the victim being the child that reports. The exit status is non-zero when
 * a message was lost, duplicated, corrupted or completed SUCCESS without being delivered.
 */
@Command(name = "adversary", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"A verified SRD stream under attack. The victim and its peer stream numbered,",
        "checksummed messages at each other (so the victim is attacked as responder and",
        "as requester) while forged and malformed frames enter the victim's receive",
        "path through its real port: an injecting decorator on the port (ring, memif),",
        "or a raw AF_PACKET socket on the far end of its veth (af_xdp, root). The",
        "attacker learns the stream's context ids, epochs and PSNs by sniffing it.",
        "Each side checks every message it receives (content, exactly once) and every",
        "completion of its sends: a SUCCESS must have been delivered intact exactly",
        "once. A send completing with an error status is an honest error (counted by",
        "status in errors), not a loss.",
        "--json prints one object last: sent, delivered, lost, duplicated, corrupted,",
        "false_success (both directions together), injected, rejected (the victim",
        "transport's non-zero rejection counters by name), peak_rss_mb (the victim",
        "process's), completions and errors by status, attack_frames by class, and",
        "each direction on its own (victim_to_peer, peer_to_victim).",
        "Exit status 1 when lost, duplicated, corrupted or false_success is not 0.",
        ""},
    footer = {"",
        "Attack classes (--attacks), each frame's class drawn at random (--seed):",
        "  truncated       cut short: below 42 bytes, inside its IPv4 packet, or an",
        "                  SRD part shorter than its header",
        "  oversized       a payload length over the MTU; an ACK with over 16 drops",
        "  bad-checksum    a wrong IPv4 header or UDP checksum",
        "  bad-version     SRD version 0 or 2..15",
        "  bad-type        SRD type 0 or 8..15, or unsupported RDMA_WRITE/RDMA_READ",
        "  far-psn         data, real context ids and epoch, PSN far out of window",
        "  far-send-base   data, real context ids and epoch, send base far ahead",
        "  forged-ack      ACKs, real ids and echoed epoch, acknowledging PSNs never",
        "                  sent (cumulative PSN and SACK bits)",
        "  forged-drop     ACKs, real ids and echoed epoch, drops of PSNs never sent",
        "  wrong-qkey      data to the real QP with a wrong Q_Key (or to no QP),",
        "                  from other addresses",
        "  forged-context  the real epoch under another context id; the real ids",
        "                  naming another destination context; ACKs and probes",
        "                  naming contexts and epochs that do not exist",
        "  stale-epoch     data with the real context ids and another epoch",
        "  replay          copies of data frames the victim already received",
        "  spoof-peer      data from the peer's IP (its MAC or another) under a",
        "                  context id and epoch of the attacker's",
        "  spoof-source    data from 0.0.0.0, broadcast, loopback, multicast, the",
        "                  victim's own IP; spoofed source MACs",
        "  flood           data from 65536 distinct source addresses: would-be",
        "                  new contexts",
        "Forged data carries a wrong Q_Key, or a PSN the real sender is not about to",
        "use, or is a copy of a frame already received: nothing a correct transport",
        "has to deliver. Attack frames carry a non-zero IPv4 identification (SRD",
        "sends 0 and never checks it): how the attacker's sniffer tells its own",
        "frames from the stream's where both come through the victim's port."})
public final class AdversaryCommand implements Callable<Integer> {

    @Option(names = "--link", defaultValue = "ring", description = "ring | memif | af_xdp (default ${DEFAULT-VALUE}); af_xdp needs root.")
    PerfCommand.Link link;

    @Option(names = "--rate", defaultValue = "10000", paramLabel = "PPS",
            description = "Attack frames per second (default ${DEFAULT-VALUE}); 0: no attack.")
    double rate;

    @Option(names = "--seconds", defaultValue = "5", paramLabel = "S",
            description = "How long the stream runs under attack (default ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--attacks", defaultValue = "all", paramLabel = "LIST",
        description = "Attack classes, comma-separated, chosen among at random: all, none, or the names below (default ${DEFAULT-VALUE}).")
    String attacks;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the attack mix (which class, which forged values) and of --loss"
        + " (default ${DEFAULT-VALUE}); what the victim sees also depends on timing.")
    long seed;

    @Option(names = "--loss", defaultValue = "0.01", description = "Probability that the victim's link loses a frame it transmits"
        + " (default ${DEFAULT-VALUE}): real links lose frames, and a loss is what a forged ACK turns into a false success; 0: lossless.")
    double loss;

    @Option(names = "--size", defaultValue = "128", description = "Message size in bytes, " + StreamPayload.MIN_SIZE
        + "..the SRD MTU (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--window", defaultValue = "32",
            description = "Sends in flight per side (the send queue depth) (default ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--drain-ms", defaultValue = "10000",
        description = "After the stream, how long each side waits for its last sends to complete; a send still without a completion"
            + " then is lost (default ${DEFAULT-VALUE}; the wait ends as soon as every send has completed).")
    long drainMs;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Any SRD transport setting (docs/configuration.md), for both sides.")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--cpu", description = "Pin the victim's polling thread to CPU N and the peer's to the next; -1: no pinning"
        + " (default 0 on two or more CPUs). The attacker's thread is not pinned.")
    Integer cpu;

    @Option(names = "--memory-mb", defaultValue = "512", description = "EAL memory per process in MiB (default ${DEFAULT-VALUE}).")
    int memoryMb;

    @Option(names = "--time-limit-s", defaultValue = "120", description = "Give up after this many seconds (default ${DEFAULT-VALUE}).")
    int timeLimitSeconds;

    @Option(names = "--json", description = "Print the result as one JSON object on the last line.")
    boolean json;

    @Option(names = "--role", hidden = true, description = "Internal: one side of a two-process run (client: the victim).")
    PerfCommand.Role role;

    @Option(names = "--vdev", hidden = true, description = "Internal: this side's DPDK device spec.")
    String vdev;

    @Option(names = "--run-id", hidden = true, description = "Internal: the run's id.")
    Integer runId;

    @Option(names = "--inject-netns", hidden = true, description = "Internal: the network namespace the victim's attacker sends from.")
    String injectNetns;

    @Option(names = "--inject-iface", hidden = true, description = "Internal: the interface the victim's attacker sends out of.")
    String injectIface;

    @Override
    public Integer call() {
        Set<Attack> classes = Attack.parseList(attacks);
        AdversaryParams p = params();
        AdversarySession.AttackPlan plan = new AdversarySession.AttackPlan(classes, rate, seed, loss, injectNetns, injectIface,
            Math.max(1500, PerfResult.frameLength(size) - 14) + 14, interfaceOf(vdev));
        if (role != null) {
            return runChild(p, plan);
        }
        return switch (link) {
            case ring -> report(AdversaryRing.run(p, plan, memoryMb, settings, pairCpu(1), pairCpu(0)));
            case memif, af_xdp -> TwoProcessPerf.run(link, size, childArgs(p), "adv", this::victimArgs, pairCpu(1), pairCpu(0),
                timeLimitSeconds * 1000L);
            case sim, tap -> throw new IllegalArgumentException("--link " + link + " has no port to attack: ring, memif or af_xdp");
        };
    }

    private AdversaryParams params() {
        if (!(rate >= 0 && rate <= 10_000_000)) {
            throw new IllegalArgumentException("--rate must be 0..10000000 frames/s, was " + rate);
        }
        if (!(seconds > 0 && seconds <= 3600)) {
            throw new IllegalArgumentException("--seconds must be in (0, 3600], was " + seconds);
        }
        if (size < StreamPayload.MIN_SIZE || size > TransportConfig.DEFAULT_MTU) {
            throw new IllegalArgumentException("--size must be " + StreamPayload.MIN_SIZE + ".." + TransportConfig.DEFAULT_MTU
                + " bytes (one message is one packet), was " + size);
        }
        if (window < 1 || window > 4096) {
            throw new IllegalArgumentException("--window must be 1..4096, was " + window);
        }
        if (!(loss >= 0 && loss < 1)) {
            throw new IllegalArgumentException("--loss must be in [0, 1), was " + loss);
        }
        if (drainMs < 0 || drainMs > 600_000) {
            throw new IllegalArgumentException("--drain-ms must be 0..600000, was " + drainMs);
        }
        if (timeLimitSeconds < 1) {
            throw new IllegalArgumentException("--time-limit-s must be at least 1, was " + timeLimitSeconds);
        }
        if (timeLimitSeconds < seconds + drainMs / 1000.0 + 5) {
            throw new IllegalArgumentException("--time-limit-s " + timeLimitSeconds + " leaves no room for --seconds and --drain-ms");
        }
        if (cpu != null && (cpu < -1 || cpu >= Runtime.getRuntime().availableProcessors())) {
            throw new IllegalArgumentException("--cpu must be -1.." + (Runtime.getRuntime().availableProcessors() - 1)
                    + " here, was " + cpu);
        }
        settings.forEach(new TransportConfig()::set); // an unknown key or a bad value fails here, before any side starts
        int id = runId != null ? runId : ThreadLocalRandom.current().nextInt(1 << 30);
        int recvDepth = Math.min(8192, Math.max(512, 8 * window));
        return new AdversaryParams(size, window, recvDepth, (long) (seconds * 1e9), drainMs * 1_000_000L, id,
                timeLimitSeconds * 1_000_000_000L);
    }

    /** The {@code iface=} of a vdev spec, or null. */
    private static String interfaceOf(String spec) {
        if (spec != null) {
            for (String part : spec.split(",")) {
                if (part.startsWith("iface=") && part.length() > "iface=".length()) {
                    return part.substring("iface=".length());
                }
            }
        }
        return null;
    }

    /** The CPU of one side: the victim's ({@code next} 0) or the peer's (1); -1: none. */
    private int pairCpu(int next) {
        int cpus = Runtime.getRuntime().availableProcessors();
        int first = cpu != null ? cpu : cpus >= 2 ? 0 : -1;
        return first < 0 ? -1 : (first + next) % cpus;
    }

    private List<String> childArgs(AdversaryParams p) {
        List<String> a = new ArrayList<>(List.of("adversary", "--link", link.name(), "--rate", Double.toString(rate),
            "--seconds", Double.toString(seconds), "--attacks", attacks, "--seed", Long.toString(seed), "--loss", Double.toString(loss),
            "--size", Integer.toString(size), "--window", Integer.toString(window), "--drain-ms", Long.toString(drainMs),
            "--memory-mb", Integer.toString(memoryMb), "--time-limit-s", Integer.toString(timeLimitSeconds),
            "--run-id", Integer.toString(p.runId())));
        if (json) {
            a.add("--json");
        }
        settings.forEach((k, v) -> a.addAll(List.of("--set", k + "=" + v)));
        return a;
    }

    /** On af_xdp the victim (the client child, in namespace A) attacks itself from the far end of its veth, in namespace B. */
    private List<String> victimArgs(VethNamespaces veth) {
        return veth == null ? List.of() : List.of("--inject-netns", veth.namespaceB(), "--inject-iface", veth.interfaceB());
    }

    private int runChild(AdversaryParams p, AdversarySession.AttackPlan plan) {
        if (vdev == null) {
            throw new IllegalArgumentException("--role needs --vdev");
        }
        StdioChannel ch = new StdioChannel(System.out);
        try (Eal eal = Eal.start(new EalConfig().memoryMb(memoryMb))) {
            int ownIp = role == PerfCommand.Role.server ? PerfCommand.SERVER_IP : PerfCommand.CLIENT_IP;
            SideConfig side = new SideConfig(eal, () -> PerfPort.attach(vdev, "adv" + role), ownIp, ThreadingMode.INVOKER,
                    link.name(), false,
                settings, cpu != null ? cpu : -1);
            try {
                if (role == PerfCommand.Role.server) {
                    AdversarySession.peer(ch, side, timeLimitSeconds * 1000L);
                    return 0;
                }
                return report(AdversarySession.victim(ch, p, side, plan));
            } catch (RuntimeException e) {
                ch.send("ERROR " + e.getMessage());
                throw e;
            }
        }
    }

    private int report(AdversaryReport r) {
        r.text().forEach(System.out::println);
        if (json) {
            System.out.println(r.json());
        }
        String failure = r.failure();
        if (failure != null) {
            System.err.println("adversary: FAILED: " + failure);
            return 1;
        }
        return 0;
    }
}
