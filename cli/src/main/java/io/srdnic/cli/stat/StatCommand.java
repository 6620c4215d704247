package io.srdnic.cli.stat;

import io.srdnic.cli.Json;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic stat}: the live counters of the dataplanes and contexts writing in a directory,
 * like AeronStat or {@code ethtool -S}: a screen refreshed every interval, or one JSON snapshot,
 * and optionally a Prometheus endpoint serving the same counters.
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
    description = {"Live counters of the dataplanes and contexts writing counters files in a directory.",
        "Files of writers no longer running are skipped; with --all a writer that died is shown STALE with its last counts,",
        "one that closed with its final ones."})
public final class StatCommand implements Callable<Integer> {
    @Option(names = "--dir", defaultValue = "/run/srdnic", description = "Where the counters files are (default ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--json", description = "Print one snapshot as a JSON object and exit.")
    boolean json;

    @Option(names = "--filter", description = "Show only counters whose label (scope and name) matches this regular expression.")
    String filter;

    @Option(names = "--interval", defaultValue = "1",
            description = "Seconds between refreshes of the live view (default ${DEFAULT-VALUE}).")
    double interval;

    @Option(names = "--count", defaultValue = "0",
            description = "Stop after this many refreshes (default ${DEFAULT-VALUE}: until interrupted).")
    long count;

    @Option(names = "--all",
            description = "Also the files of writers that are no longer running (shown STALE or closed, with their last counts).")
    boolean all;

    @Option(names = "--metrics-port", description = "Also serve the counters for Prometheus on this port (/metrics).")
    Integer metricsPort;

    @Override
    public Integer call() throws Exception {
        if (interval <= 0) {
            throw new IllegalArgumentException("--interval must be positive, was " + interval);
        }
        CountersDirectory counters = new CountersDirectory(dir, filter == null ? null : Pattern.compile(filter), all);
        if (json) {
            System.out.println(Json.object(StatView.json(counters, counters.read())));
            return 0;
        }
        MetricsEndpoint metrics = metricsPort == null ? null : MetricsEndpoint.start(counters, metricsPort);
        try {
            if (metrics != null) {
                System.err.println("stat: Prometheus metrics on http://localhost:" + metrics.port() + "/metrics");
            }
            for (long n = 1; count == 0 || n <= count; n++) {
                System.out.print("\033[H\033[2J" + StatView.text(counters, counters.read(), Instant.now()));
                System.out.flush();
                if (count == 0 || n < count) {
                    Thread.sleep((long) (interval * 1000));
                }
            }
        } finally {
            if (metrics != null) {
                metrics.close();
            }
        }
        return 0;
    }
}
