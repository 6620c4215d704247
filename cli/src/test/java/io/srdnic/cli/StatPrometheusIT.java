package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.srdnic.cli.net.MemifSpec;
import io.srdnic.cli.pktgen.PeerProcess;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code srdnic stat --metrics-port} over a REAL running dataplane while an attached perf pair
 * makes traffic through it, scraped over HTTP as Prometheus would, and the body checked by
 * Prometheus's own {@code promtool check metrics} (Debian package prometheus; scripts/setup
 * installs it): the exposition parses, follows the naming conventions promtool lints, and carries
 * the dataplane's live counts (messages sent, a client attached).
 */
class StatPrometheusIT {
    private static final Pattern TX = Pattern.compile("(?m)^srdnic_tx_data_total\\{device=\"net_memif0\"\\} (\\S+)$");

    @Test
    void shouldServeAnExpositionPromtoolAcceptsFromALiveDataplane(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/promtool")), "promtool (Debian package prometheus; scripts/setup installs it)");
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        long pid = ProcessHandle.current().pid();
        String socket = dir.resolve("m.sock").toString();
        int oob = 20000 + (int) ((pid + 7) % 20000);
        int metricsPort;
        try (ServerSocket s = new ServerSocket(0)) {
            metricsPort = s.getLocalPort();
        }
        try (PeerProcess planeA = PeerProcess.start("dataplane A", null, plane(MemifSpec.of("server", socket), a, "10.0.0.1"))) {
            planeA.await("ready", 60_000);
            try (PeerProcess planeB = PeerProcess.start("dataplane B", null, plane(MemifSpec.of("client", socket), b, "10.0.0.2"))) {
                planeA.await("link up", 60_000);
                planeB.await("link up", 60_000);
                try (PeerProcess server = PeerProcess.start("perf server", null,
                        List.of("perf", "--server", "--attach", a.toString(), "--link",
                         "memif", "--oob-port", Integer.toString(oob), "--time-limit-s", "120"));
                     PeerProcess client = PeerProcess.start("perf client", null, List.of("perf", "--client", "127.0.0.1:" + oob, "--attach",
                         b.toString(), "--link", "memif", "--mode", "lat", "--transport", "srd", "--size", "64", "--iters", "1000000",
                         "--warmup", "100", "--json", "--time-limit-s", "120"));
                     PeerProcess stat = PeerProcess.start("srdnic stat", null, List.of("stat", "--dir", a.toString(), "--metrics-port",
                         Integer.toString(metricsPort), "--interval", "1"))) {
                    String body = awaitTraffic(metricsPort);
                    Matcher tx = TX.matcher(body);
                    assertTrue(tx.find() && Double.parseDouble(tx.group(1)) > 100, "the port's live count of messages sent:\n" + body);
                    assertTrue(Pattern.compile("(?m)^srdnic_clients\\{dataplane=\"attach\"\\} 1(\\.0)?$").matcher(body).find(),
                        "the attached perf server:\n" + body);
                    assertFalse(body.contains("pid=") || body.contains("file=") || body.contains("peer=") || body.contains("client="),
                        "bounded labels, no pid:\n" + body);
                    Files.writeString(dir.resolve("scrape.txt"), body);
                    Process promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true)
                        .redirectInput(dir.resolve("scrape.txt").toFile()).start();
                    assertTrue(promtool.waitFor(60, TimeUnit.SECONDS));
                    String verdict = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertEquals(0, promtool.exitValue(), "promtool check metrics:\n" + verdict + "\non:\n" + body);
                    assertEquals("", verdict.strip(), "no lint problem:\n" + verdict);
                    client.kill();
                    server.kill();
                }
            }
        }
    }

    /** Scrapes until the port has sent messages (the perf pair connects and runs), at most 120 s; the last body. */
    private static String awaitTraffic(int port) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.currentTimeMillis() + 120_000;
        String body = "";
        int status = 0;
        while (System.currentTimeMillis() < deadline) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
                status = r.statusCode();
                body = r.body();
                assertEquals(200, status, "the scrape of a live dataplane's directory:\n" + body);
                Matcher tx = TX.matcher(body);
                if (tx.find() && Double.parseDouble(tx.group(1)) > 100) {
                    return body;
                }
            } catch (ConnectException notYet) {
                // srdnic stat is still starting
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no traffic in the scrape within 120 s (HTTP " + status + "):\n" + body);
    }

    private static List<String> plane(String port, Path dir, String ip) {
        return List.of("dataplane", "--port", port, "--dir", dir.toString(), "--ip", ip, "--log-level", "WARNING");
    }
}
