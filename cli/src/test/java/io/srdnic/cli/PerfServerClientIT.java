package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * perf's perftest-style mode: a server started on its own ({@code --server}, a child JVM here) and a
 * client ({@code --client localhost:P}, in this JVM) meet over the TCP side channel, over memif.
 * Both print the result; the server exits after one run.
 */
class PerfServerClientIT {

    @Test
    void shouldFindEachOtherOverTheTcpSideChannel() throws Exception {
        int port = freePort();
        String socket = "/run/srdnic-perf-it-" + ProcessHandle.current().pid() + ".sock";
        Process server = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED",
            "-Xmx512m", "-cp", System.getProperty("srdnic.jar"), "io.srdnic.cli.Srdnic",
            "perf", "--server", "--link", "memif", "--oob-port", Integer.toString(port), "--memif-socket", socket, "--time-limit-s", "60")
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            CliRun run = CliRun.of("perf", "--client", "localhost:" + port, "--link", "memif", "--memif-socket", socket,
                "--mode", "lat", "--iters", "1000", "--warmup-ms", "0", "--qps", "2", "--json");
            assertEquals(0, run.status(), run.stdout());
            Map<String, String> json = run.json();
            PerfSimIT.assertContract(json, "lat", true);
            assertEquals("2", json.get("qps"));
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the server exits after one run");
            assertEquals(0, server.exitValue());
            List<String> lines = new String(server.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip().lines().toList();
            assertEquals(run.json().get("p50_us"), new CliRun(0, lines.get(lines.size() - 1)).json().get("p50_us"),
                "the server prints the client's result too");
        } finally {
            server.destroyForcibly();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
