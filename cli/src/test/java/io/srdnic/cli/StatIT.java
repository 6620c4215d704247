package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A real run writes counters that agree with what it reports: srdnic perf over a lossy simulated
 * network with -Dsrdnic.counters.dir, in its own JVM, then {@code srdnic stat --json} on that
 * directory: the server's and client's files, closed, with the packets the run says went and came
 * (with {@code --all}: by default stat skips the files of writers that have ended).
 */
class StatIT {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"ud", "srd"})
    void shouldPublishCountersThatMatchWhatPerfReports(String transport) throws Exception {
        Process perf = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED",
            "-Dsrdnic.counters.dir=" + dir, "-jar", System.getProperty("srdnic.jar"), "perf", "--link", "sim", "--mode", "bw",
            "--transport", transport, "--iters", "3000", "--loss", "0.05", "--json")
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(perf.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(perf.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, perf.exitValue(), out);
        Map<String, String> report = new CliRun(0, out).json();
        long sent = Long.parseLong(report.get("sent"));
        long received = Long.parseLong(report.get("received"));

        assertTrue(countersByFile(CliRun.of("stat", "--dir", dir.toString(), "--json").stdout()).isEmpty(),
            "perf has ended: by default stat shows only running writers");
        CliRun stat = CliRun.of("stat", "--dir", dir.toString(), "--json", "--all");
        assertEquals(0, stat.status());
        String json = stat.stdout().strip().lines().reduce((a, b) -> b).orElseThrow();
        List<Map<String, Long>> files = countersByFile(json);
        assertEquals(2, files.size(), "the server's context and the client's: " + json);
        assertTrue(json.contains("\"status\":\"closed\""), "perf closed its contexts: the final counts stay, marked closed");
        Map<String, Long> server = files.get(0); // opened first
        Map<String, Long> client = files.get(1);
        if (transport.equals("ud")) {
            assertEquals(sent, value(client, "tx_datagrams"), "every datagram the client sent, counted where it left");
            assertEquals(received, value(server, "rx_datagrams"), "every one the server took, counted where it arrived");
            assertEquals(Long.parseLong(report.get("lost")), value(client, "tx_datagrams") - value(server, "rx_datagrams"),
                "UD's losses are what the network dropped");
        } else {
            assertEquals(received, value(server, "delivered"), "each message delivered once");
            assertTrue(value(client, "tx_retransmits") > 0, "5% loss is repaired by retransmission: " + client);
            assertEquals(value(client, "tx_data"), sum(client, "path_tx_packets"), "the paths' counts add up to the device's");
            assertEquals(sent, value(client, "send_success"), "every send completed SUCCESS");
        }
    }

    /**
     * A writer killed with -9 mid-run leaves its file LIVE with a pid that no longer runs: stat
     * shows it stale, its last published counts still there.
     */
    @Test
    void shouldShowTheCountersOfAWriterThatWasKilledAsStale() throws Exception {
        Process perf = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED",
            "-Dsrdnic.counters.dir=" + dir, "-jar", System.getProperty("srdnic.jar"), "perf", "--link", "sim", "--mode", "bw",
            "--iters", "100000000", "--time-limit-s", "60").redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            long deadline = System.nanoTime() + 30_000_000_000L;
            String json;
            do {
                Thread.sleep(200);
                json = CliRun.of("stat", "--dir", dir.toString(), "--json", "--filter", "tx_data").stdout();
                assertTrue(System.nanoTime() < deadline, "perf's counters never showed traffic: " + json);
            } while (!json.contains("\"status\":\"live\"") || !Pattern.compile(" tx_data\":[1-9]").matcher(json).find());
        } finally {
            perf.destroyForcibly(); // SIGKILL: no close, no CLOSED state
            perf.waitFor(30, TimeUnit.SECONDS);
        }
        assertTrue(countersByFile(CliRun.of("stat", "--dir", dir.toString(), "--json").stdout()).isEmpty(),
            "a killed writer's files are skipped by default");
        CliRun stat = CliRun.of("stat", "--dir", dir.toString(), "--json", "--all");
        String json = stat.stdout().strip().lines().reduce((a, b) -> b).orElseThrow();
        assertEquals(2, countersByFile(json).size(), json);
        assertTrue(json.contains("\"status\":\"stale\"") && !json.contains("\"status\":\"live\""), json);
        assertTrue(value(countersByFile(json).get(1), "tx_data") > 0, "the last counts it published stay readable");
        CliRun screen = CliRun.of("stat", "--dir", dir.toString(), "--count", "1", "--all");
        assertTrue(screen.stdout().contains("STALE: pid " + perf.pid() + " is not running"), screen.stdout());
    }

    /** Each file's counters, by label, in file-name order (a counter's number in the name is the order the contexts opened). */
    static List<Map<String, Long>> countersByFile(String json) {
        Map<Integer, Map<String, Long>> byOrder = new TreeMap<>();
        Matcher file = Pattern.compile("\"\\d+-(\\d+)-[^\"]*\\.counters\":\\{[^{]*\"counters\":\\{([^}]*)\\}").matcher(json);
        while (file.find()) {
            Map<String, Long> counters = new LinkedHashMap<>();
            Matcher kv = Pattern.compile("\"([^\"]+)\":(-?\\d+)").matcher(file.group(2));
            while (kv.find()) {
                counters.put(kv.group(1), Long.parseLong(kv.group(2)));
            }
            byOrder.put(Integer.parseInt(file.group(1)), counters);
        }
        return new ArrayList<>(byOrder.values());
    }

    /** The device-wide counter {@code name} (its scope has no peer, path or QP). */
    static long value(Map<String, Long> counters, String name) {
        return counters.entrySet().stream().filter(e -> e.getKey().matches("device=[^,]* " + name)).mapToLong(Map.Entry::getValue)
            .findFirst().orElseThrow(() -> new AssertionError("no " + name + " in " + counters.keySet()));
    }

    static long sum(Map<String, Long> counters, String name) {
        return counters.entrySet().stream().filter(e -> e.getKey().endsWith(" " + name)).mapToLong(Map.Entry::getValue).sum();
    }
}
