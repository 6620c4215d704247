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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The counters of a directory as Prometheus metrics, read at each scrape: a counter named
 * {@code tx_data} in scope {@code device=sim-1,peer=10.0.0.2:4791} becomes
 * {@code srdnic_tx_data_total{file="...",device="sim-1",peer="10.0.0.2:4791"}} (gauges without
 * {@code _total}), and each file's writer {@code srdnic_writer_up{file,pid,status}} (1 while live).
 */
final class CountersMetrics implements MultiCollector {
    private static final String PREFIX = "srdnic_";
    private final CountersDirectory dir;

    CountersMetrics(CountersDirectory dir) {
        this.dir = dir;
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, List<CounterSnapshot.CounterDataPointSnapshot>> counters = new LinkedHashMap<>();
        Map<String, List<GaugeSnapshot.GaugeDataPointSnapshot>> gauges = new LinkedHashMap<>();
        List<GaugeSnapshot.GaugeDataPointSnapshot> up = new ArrayList<>();
        for (CountersDirectory.FileSnapshot f : dir.read()) {
            String file = f.name();
            up.add(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(f.status().equals("live") ? 1 : 0)
                .labels(Labels.of("file", file, "pid", Long.toString(f.pid()), "status", f.status())).build());
            for (Counter c : f.counters()) {
                Labels labels = labels(file, c.scope());
                if (c.isGauge()) {
                    gauges.computeIfAbsent(c.name(), k -> new ArrayList<>())
                        .add(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(c.value()).labels(labels).build());
                } else {
                    counters.computeIfAbsent(c.name(), k -> new ArrayList<>())
                        .add(CounterSnapshot.CounterDataPointSnapshot.builder().value(c.value()).labels(labels).build());
                }
            }
        }
        List<MetricSnapshot> out = new ArrayList<>();
        out.add(new GaugeSnapshot(new MetricMetadata(PREFIX + "writer_up", "1 while the writer of a counters file runs"), up));
        counters.forEach((name, points) -> out.add(new CounterSnapshot(new MetricMetadata(PREFIX + name, "srdnic counter " + name), points)));
        gauges.forEach((name, points) -> out.add(new GaugeSnapshot(new MetricMetadata(PREFIX + name, "srdnic gauge " + name), points)));
        return new MetricSnapshots(out);
    }

    /** {@code file} and the scope's {@code k=v} pairs as labels. */
    static Labels labels(String file, String scope) {
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        names.add("file");
        values.add(file);
        if (!scope.isEmpty()) {
            for (String pair : scope.split(",")) {
                int eq = pair.indexOf('=');
                names.add(eq < 0 ? pair : pair.substring(0, eq));
                values.add(eq < 0 ? "" : pair.substring(eq + 1));
            }
        }
        return Labels.of(names, values);
    }
}
