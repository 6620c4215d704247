package io.srdnic.cli.stat;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.srdnic.srd.counters.Counter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The counters of a directory as Prometheus metrics, read at each scrape and shaped by
 * Prometheus's naming conventions, so that {@code promtool check metrics} accepts the exposition:
 * <ul>
 * <li>a counter {@code tx_data} of scope {@code device=sim-1} is {@code srdnic_tx_data_total{device="sim-1"}},
 * a gauge keeps its name; a name ending in a suffix Prometheus reserves ({@code _created},
 * {@code _count}, {@code _sum}, {@code _bucket}, {@code _info}, {@code _total}) has it spelt out
 * ({@code contexts_created} becomes {@code srdnic_contexts_creations_total});
 * <li>base units: {@code _ns}, {@code _us}, {@code _ms} become {@code _seconds} and {@code _mb}
 * {@code _bytes}, the value converted;
 * <li>bounded label sets: only the scope keys {@code device}, {@code dataplane} and {@code lcore}
 * become labels (fixed by the host's configuration). Series per peer, path, QP or client
 * ({@code peer=}, {@code path=}, {@code qp=}, {@code client=}) are left out: their number grows with
 * traffic and attach churn, which is what a time-series store must not be given; {@code srdnic stat}
 * and {@code srdnic dataplane res} show them. No pid and no file name in any label (both change
 * with every restart);
 * <li>only files whose writer is running: a dead or closed writer's last counts are not current
 * values; {@code srdnic_counters_files{status}} counts the files in each state.
 * </ul>
 */
final class CountersMetrics implements MultiCollector {
    private static final String PREFIX = "srdnic_";
    static final Set<String> LABEL_KEYS = Set.of("device", "dataplane", "lcore");
    private static final String[][] RESERVED = {{"_created", "_creations"}, {"_count", "_number"}, {"_sum", "_summed"},
        {"_bucket", "_buckets"}, {"_info", "_information"}, {"_total", "_all"}};
    /** Unit suffix, its base unit, and the factor to it. */
    private static final Object[][] UNITS = {{"_ns", "_seconds", 1e-9}, {"_us", "_seconds", 1e-6}, {"_ms", "_seconds", 1e-3},
        {"_mb", "_bytes", 1048576.0}};
    private final CountersDirectory dir;

    CountersMetrics(CountersDirectory dir) {
        this.dir = dir;
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, List<CounterSnapshot.CounterDataPointSnapshot>> counters = new TreeMap<>();
        Map<String, List<GaugeSnapshot.GaugeDataPointSnapshot>> gauges = new TreeMap<>();
        Map<String, Set<Labels>> seen = new LinkedHashMap<>();
        Map<String, Integer> files = new TreeMap<>(Map.of("live", 0, "closed", 0, "stale", 0));
        for (CountersDirectory.FileSnapshot f : dir.read()) {
            files.merge(f.status(), 1, Integer::sum);
            if (!f.status().equals("live")) {
                continue;
            }
            for (Counter c : f.counters()) {
                Labels labels = labels(c.scope());
                if (labels == null) {
                    continue;
                }
                String name = name(c.name());
                double value = c.value() * factor(c.name());
                if (!seen.computeIfAbsent(name, k -> new HashSet<>()).add(labels)) {
                    continue; // two live writers with the same device name: the first is served (duplicates are refused by Prometheus)
                }
                if (c.isGauge()) {
                    gauges.computeIfAbsent(name, k -> new ArrayList<>())
                        .add(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(labels).build());
                } else {
                    counters.computeIfAbsent(name, k -> new ArrayList<>())
                        .add(CounterSnapshot.CounterDataPointSnapshot.builder().value(value).labels(labels).build());
                }
            }
        }
        List<MetricSnapshot> out = new ArrayList<>();
        List<GaugeSnapshot.GaugeDataPointSnapshot> fileCounts = new ArrayList<>();
        files.forEach((status, n) -> fileCounts.add(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(n)
                .labels(Labels.of("status", status)).build()));
        out.add(new GaugeSnapshot(new MetricMetadata(PREFIX + "counters_files",
            "Counters files in the directory: live (writer running), closed (ended in order), stale (writer died)"), fileCounts));
        counters.forEach((name, points) -> out.add(new CounterSnapshot(new MetricMetadata(PREFIX + name, "srdnic counter "
                + name), points)));
        gauges.forEach((name, points) -> out.add(new GaugeSnapshot(new MetricMetadata(PREFIX + name, "srdnic gauge " + name), points)));
        return new MetricSnapshots(out);
    }

    /** The exported name of counter {@code name}: reserved suffixes spelt out, units made base units. */
    static String name(String name) {
        for (Object[] u : UNITS) {
            if (name.endsWith((String) u[0])) {
                return name.substring(0, name.length() - ((String) u[0]).length()) + u[1];
            }
        }
        for (String[] r : RESERVED) {
            if (name.endsWith(r[0])) {
                return name.substring(0, name.length() - r[0].length()) + r[1];
            }
        }
        return name;
    }

    /** What a value of counter {@code name} is multiplied by to be in its base unit. */
    static double factor(String name) {
        for (Object[] u : UNITS) {
            if (name.endsWith((String) u[0])) {
                return (Double) u[2];
            }
        }
        return 1;
    }

    /** The scope's {@code k=v} pairs as labels, or null when it has a key outside {@link #LABEL_KEYS} (an unbounded series). */
    static Labels labels(String scope) {
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        if (!scope.isEmpty()) {
            for (String pair : scope.split("[, ]")) { // the attach server's per-client scopes add " client=N"
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                if (!LABEL_KEYS.contains(key)) {
                    return null;
                }
                names.add(key);
                values.add(eq < 0 ? "" : pair.substring(eq + 1));
            }
        }
        return Labels.of(names, values);
    }
}
