package io.srdnic.cli.dataplane;

import io.srdnic.dataplane.DataplaneConfigFile;
import io.srdnic.dataplane.DataplaneProcess;
import io.srdnic.dataplane.IdleStrategies;
import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachPolicy;
import io.srdnic.dataplane.attach.ClientQuota;
import io.srdnic.dataplane.attach.TotalQuota;
import io.srdnic.srd.api.TransportConfig;
import java.net.Inet4Address;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code srdnic dataplane}: the options of the dedicated dataplane process ({@link DataplaneProcess},
 * in the {@code dataplane} module), merged with {@code --config} and checked before anything starts.
 */
@Command(name = "dataplane", mixinStandardHelpOptions = true, subcommands = ResCommand.class,
    description = "Run the dedicated dataplane: own the ports, serve attached applications over DIR/control.sock.")
public final class DataplaneCommand implements Callable<Integer> {
    private static final System.Logger LOG = System.getLogger(DataplaneCommand.class.getName());

    @Option(names = "--config", paramLabel = "FILE",
        description = "Options from FILE, one key = value a line (port, lcores, cpu, dir, shm-dir, ip, memory-mb, busy-spin, idle, "
                + "log-level,"
            + " group, allow-uid, allow-group, max-connections, max-connections-per-uid, open-timeout-ms;"
            + " port repeats; set.KEY for a transport setting); options on the command line win.")
    Path config;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
        description = "A transport setting of every context (docs/configuration.md), e.g. --set rto-min-us=200; repeatable.")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--quota", paramLabel = "NAME=VALUE",
        description = "A per-client quota (cqs, cq-entries, qps, qp-entries, srqs, pds, mrs, ahs, cm-ids, xrcds, pool-bytes;"
            + " docs/dataplane.md, Containment), e.g. --quota cq-entries=262144; repeatable. A create (or an OPEN's pool) past it is"
            + " refused, nothing made.")
    Map<String, String> quotas = new LinkedHashMap<>();

    /** What each client may make: the defaults with --quota and quota.NAME applied (checked by applyConfig). */
    ClientQuota quota = ClientQuota.DEFAULTS;

    @Option(names = "--total-quota", paramLabel = "NAME=VALUE",
        description = "A quota over all clients together (pool-bytes: their shared memory, default half the machine's memory;"
            + " cq-entries, qp-entries: default a quarter of the heap each at ~40 bytes an entry),"
            + " e.g. --total-quota pool-bytes=8589934592;"
            + " repeatable. An OPEN or create past it is refused, naming it; the clients holding the rest carry on.")
    Map<String, String> totalQuotas = new LinkedHashMap<>();

    /** What all clients together may hold: this machine's defaults with --total-quota and total-quota.NAME applied. */
    TotalQuota totals;

    @Option(names = "--port", paramLabel = "SPEC",
        description = "A DPDK device by its EAL spec, e.g. net_memif0,role=server,socket=/run/m.sock (repeatable; with one lcore port i "
                + "gets --ip + i).")
    List<String> ports = new ArrayList<>();

    @Option(names = "--lcores", defaultValue = "1",
        description = "Lcore threads (default ${DEFAULT-VALUE}). Each runs one context per port (port p, lcore k at --ip + p*L + k) and"
            + " the clients that attach to it (lcore 0 in DIR, lcore k in DIR/lcore-k); lcore p mod L receives port p and hands frames"
            + " to the other lcores' contexts by destination address (docs/dataplane.md).")
    int lcores;

    @Option(names = "--cpu", split = ",", paramLabel = "CPU[,CPU...]",
        description = "Pin lcore k to the k-th CPU listed (default: let the scheduler place them).")
    List<Integer> cpus = new ArrayList<>();

    @Option(names = "--dir", defaultValue = "/run/srdnic",
        description = "The run directory: control socket, pid file, counters, memif sockets (default ${DEFAULT-VALUE}); made mode 0755,"
            + " or refused unless owned by this uid and not writable by group or others.")
    Path dir;

    @Option(names = "--shm-dir", paramLabel = "DIR",
        description = "Make clients' shared memory as files in DIR (e.g. /dev/shm), which clients of another uid can open. Default: a"
            + " sealed memfd per client, which no client can shrink under the dataplane and which only the dataplane's uid (or root) "
                    + "opens.")
    Path shmDir;

    @Option(names = "--ip", defaultValue = "10.0.0.1", description = "IPv4 address of the first port (default ${DEFAULT-VALUE}).")
    String ip;

    @Option(names = "--memory-mb", defaultValue = "512", description = "EAL memory in MiB (default ${DEFAULT-VALUE}).")
    int memoryMb;

    @Option(names = "--group", defaultValue = "-1", paramLabel = "GID",
        description = "Numeric group of the control sockets (mode 0660) and memif server sockets (default: the dataplane's own).")
    int group;

    @Option(names = "--allow-uid", split = ",", paramLabel = "UID[,UID...]",
        description = "Numeric uids that may attach, besides root (default: the dataplane's own uid and root).")
    List<Integer> allowUids = new ArrayList<>();

    @Option(names = "--allow-group", split = ",", paramLabel = "GID[,GID...]",
        description = "Numeric gids whose members (by the client's primary gid) may attach.")
    List<Integer> allowGroups = new ArrayList<>();

    @Option(names = "--max-connections", defaultValue = "" + AttachPolicy.DEFAULT_MAX_CONNECTIONS,
        description = "Control connections at once, per lcore (default ${DEFAULT-VALUE}); more are told why and closed.")
    int maxConnections;

    @Option(names = "--max-connections-per-uid", defaultValue = "" + AttachPolicy.DEFAULT_MAX_CONNECTIONS_PER_UID,
        description = "Control connections at once of one uid, per lcore (default ${DEFAULT-VALUE}).")
    int maxConnectionsPerUid;

    @Option(names = "--open-timeout-ms", defaultValue = "" + AttachPolicy.DEFAULT_OPEN_TIMEOUT_MILLIS,
        description = "A connection that has not sent OPEN within this is closed (default ${DEFAULT-VALUE}).")
    long openTimeoutMs;

    @Option(names = "--busy-spin", description = "Never park an idle lcore (lowest latency; burns its core): --idle spin.")
    boolean busySpin;

    @Option(names = "--idle", defaultValue = "backoff", paramLabel = "STRATEGY",
        description = "What an lcore does after a pass with nothing to do: backoff (spin, yield, then park 20 us; default), spin"
            + " (never park: latency runs), sleep (1 ms: a host where an idle dataplane must not take CPU).")
    String idle;

    @Option(names = "--log-level", defaultValue = "INFO",
            description = "SEVERE, WARNING, INFO, FINE (default ${DEFAULT-VALUE}); logs go to stderr.")
    String logLevel;

    @Spec
    CommandSpec spec;

    /**
     * Takes what {@code --config} sets for every option the command line does not, then checks the
     * whole: a port at least, and transport settings the transport knows.
     */
    void applyConfig() {
        if (config != null) {
            DataplaneConfigFile file = DataplaneConfigFile.read(config);
            if (!given("--port") && !file.values("port").isEmpty()) {
                ports = new ArrayList<>(file.values("port"));
            }
            String v;
            if (!given("--lcores") && (v = file.value("lcores")) != null) {
                lcores = number("lcores", v);
            }
            if (!given("--cpu") && (v = file.value("cpu")) != null) {
                cpus = numbers("cpu", v);
            }
            if (!given("--dir") && (v = file.value("dir")) != null) {
                dir = Path.of(v);
            }
            if (!given("--shm-dir") && (v = file.value("shm-dir")) != null) {
                shmDir = Path.of(v);
            }
            if (!given("--ip") && (v = file.value("ip")) != null) {
                ip = v;
            }
            if (!given("--memory-mb") && (v = file.value("memory-mb")) != null) {
                memoryMb = number("memory-mb", v);
            }
            if (!given("--busy-spin") && (v = file.value("busy-spin")) != null) {
                if (!v.equals("true") && !v.equals("false")) {
                    throw new IllegalArgumentException("--config " + config + ": busy-spin is true or false, was " + v);
                }
                busySpin = Boolean.parseBoolean(v);
            }
            if (!given("--idle") && (v = file.value("idle")) != null) {
                idle = v;
            }
            if (!given("--log-level") && (v = file.value("log-level")) != null) {
                logLevel = v;
            }
            if (!given("--group") && (v = file.value("group")) != null) {
                group = number("group", v);
            }
            if (!given("--allow-uid") && (v = file.value("allow-uid")) != null) {
                allowUids = numbers("allow-uid", v);
            }
            if (!given("--allow-group") && (v = file.value("allow-group")) != null) {
                allowGroups = numbers("allow-group", v);
            }
            if (!given("--max-connections") && (v = file.value("max-connections")) != null) {
                maxConnections = number("max-connections", v);
            }
            if (!given("--max-connections-per-uid") && (v = file.value("max-connections-per-uid")) != null) {
                maxConnectionsPerUid = number("max-connections-per-uid", v);
            }
            if (!given("--open-timeout-ms") && (v = file.value("open-timeout-ms")) != null) {
                openTimeoutMs = number("open-timeout-ms", v);
            }
            Map<String, String> merged = new LinkedHashMap<>(file.settings());
            merged.putAll(settings); // --set wins
            settings = merged;
            Map<String, String> mergedQuotas = new LinkedHashMap<>(file.quotas());
            mergedQuotas.putAll(quotas); // --quota wins
            quotas = mergedQuotas;
            Map<String, String> mergedTotals = new LinkedHashMap<>(file.totalQuotas());
            mergedTotals.putAll(totalQuotas); // --total-quota wins
            totalQuotas = mergedTotals;
        }
        if (ports.isEmpty()) {
            throw new IllegalArgumentException("no port: give --port SPEC, or port = SPEC in --config");
        }
        // An unknown key, a value that does not parse or one out of range fails here, before EAL starts
        // (the link's MTU is fitted later, per port; here any frame size will do).
        ClientQuota q = ClientQuota.DEFAULTS;
        for (Map.Entry<String, String> e : quotas.entrySet()) {
            q = q.with(e.getKey(), e.getValue());
        }
        quota = q;
        TotalQuota t = TotalQuota.ofThisMachine();
        for (Map.Entry<String, String> e : totalQuotas.entrySet()) {
            t = t.with(e.getKey(), e.getValue());
        }
        totals = t;
        IdleStrategies.named(idle); // an unknown name fails here, naming the known ones
        TransportConfig check = new TransportConfig();
        settings.forEach(check::set);
        check.conclude(1 << 16);
    }

    private boolean given(String option) {
        return spec != null && spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    private List<Integer> numbers(String key, String value) {
        List<Integer> out = new ArrayList<>();
        for (String n : value.split(",")) {
            out.add(number(key, n.strip()));
        }
        return out;
    }

    /** Who may attach and how much of the control socket they may hold, from the options. */
    AttachPolicy policy() {
        AllowRule allow = allowUids.isEmpty() && allowGroups.isEmpty() ? AllowRule.ownUidOrRoot()
            : AllowRule.of(new HashSet<>(allowUids), new HashSet<>(allowGroups));
        return new AttachPolicy(allow, group, maxConnections, maxConnectionsPerUid, openTimeoutMs);
    }

    private int number(String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--config " + config + ": " + key + " is a number, was " + value);
        }
    }

    @Override
    public Integer call() throws Exception {
        applyConfig();
        if (lcores < 1 || lcores > 64) {
            throw new IllegalArgumentException("--lcores must be 1..64, was " + lcores);
        }
        configureLogging(Level.parse(logLevel));
        int firstIp = ByteBuffer.wrap(Inet4Address.ofLiteral(ip).getAddress()).getInt();
        new DataplaneProcess(ports, lcores, cpus, firstIp, dir, shmDir, memoryMb, busySpin ? "spin" : idle, settings,
                policy(), quota, totals).run();
        return 0;
    }

    private static void configureLogging(Level level) {
        Logger root = Logger.getLogger("");
        root.setLevel(level);
        for (var h : root.getHandlers()) {
            h.setLevel(level);
        }
        if (root.getHandlers().length == 0) {
            ConsoleHandler h = new ConsoleHandler();
            h.setLevel(level);
            root.addHandler(h);
        }
    }
}
