package io.srdnic.cli.stat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.counters.CountersLayout;
import io.srdnic.srd.counters.CountersWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus endpoint over a counters directory, scraped over HTTP as Prometheus would. */
class MetricsEndpointTest {
    @TempDir
    Path dir;

    @Test
    void shouldServeDeviceLevelCountersUnderPrometheusNamesWithBoundedLabels() throws Exception {
        try (CountersWriter w = CountersWriter.create(dir.resolve("42-1-sim-1.counters"), "embedded context sim-1", 64);
             MetricsEndpoint endpoint = MetricsEndpoint.start(new CountersDirectory(dir, null), 0)) {
            int tx = w.allocate(CountersLayout.COUNTER, "device=sim-1 tx_data", 0);
            int created = w.allocate(CountersLayout.COUNTER, "device=sim-1 contexts_created", 0);
            int cycle = w.allocate(CountersLayout.GAUGE, "dataplane=lcore,lcore=1 duty_cycle_ns", 0);
            int rtt = w.allocate(CountersLayout.GAUGE, "device=sim-1,peer=10.0.0.2:4791 peer_srtt_ns", 0);
            int ring = w.allocate(CountersLayout.GAUGE, "dataplane=attach client=7 send_ring_fill", 0);
            w.set(tx, 1234);
            w.set(created, 3);
            w.set(cycle, 2_500);
            w.set(rtt, 56_000);
            w.set(ring, 9);
            String body = scrape(endpoint.port());
            assertEquals(1234, value(body, "srdnic_tx_data_total{device=\"sim-1\"}"), body);
            assertTrue(body.contains("# TYPE srdnic_tx_data_total counter"), body);
            assertEquals(3, value(body, "srdnic_contexts_creations_total{device=\"sim-1\"}"), "a reserved suffix spelt out: " + body);
            assertEquals(2.5e-6, doubleValue(body, "srdnic_duty_cycle_seconds{dataplane=\"lcore\",lcore=\"1\"}"), 1e-12,
                    "base units: " + body);
            assertFalse(body.contains("peer_srtt") || body.contains("send_ring_fill"),
                    "per-peer and per-client series are left out: " + body);
            assertFalse(body.contains("file=") || body.contains("pid="), "no file name or pid in labels: " + body);
            assertEquals(1, value(body, "srdnic_counters_files{status=\"live\"}"), body);
            w.set(tx, 1300);
            assertEquals(1300, value(scrape(endpoint.port()), "srdnic_tx_data_total{device=\"sim-1\"}"),
                    "each scrape reads the file afresh");
        }
    }

    @Test
    void shouldServeNothingButTheWriterGaugeForAnEmptyOrMissingDirectory() throws Exception {
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(new CountersDirectory(dir.resolve("none"), null), 0)) {
            String body = scrape(endpoint.port());
            assertTrue(!body.contains("srdnic_tx_data"), body);
        }
    }

    static String scrape(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        return response.body();
    }

    static long value(String body, String series) {
        return (long) doubleValue(body, series);
    }

    static double doubleValue(String body, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(body);
        assertTrue(m.find(), "no " + series + " in\n" + body);
        return Double.parseDouble(m.group(1));
    }
}
