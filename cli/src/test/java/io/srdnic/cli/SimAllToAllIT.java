package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code srdnic sim --all-to-all}: the JSON fields issue 10 names, for each transport, every message
 * delivered. Each run is its own JVM, as from the command line: the transport state it reports is
 * the live heap it grew by, which threads left over in a shared test JVM would blur.
 */
class SimAllToAllIT {

    @Test
    void shouldReportTheCostPerNodeOfFullConnectivityForEachTransport() throws Exception {
        long[] qps = new long[3];
        String[] transports = {"rc", "src", "srd"};
        for (int i = 0; i < 3; i++) {
            Process p = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar",
                System.getProperty("srdnic.jar"), "sim", "--all-to-all", "--nodes", "4", "--jobs", "3", "--transport", transports[i],
                "--size", "64", "--loss", "0.02", "--seed", "3", "--json").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "sim --all-to-all ended");
            assertEquals(0, p.exitValue(), out);
            String last = out.strip().lines().reduce((a, b) -> b).orElse("");
            Map<String, String> j = new CliRun(p.exitValue(), out).json();
            assertEquals(transports[i], j.get("transport"));
            assertEquals("4", j.get("nodes"));
            assertEquals("3", j.get("jobs"));
            assertEquals("108", j.get("messages"));
            assertEquals(j.get("messages"), j.get("delivered"));
            assertTrue(Long.parseLong(j.get("state_bytes_per_node")) > 0 && Long.parseLong(j.get("contexts_per_node")) > 0, last);
            assertTrue(Double.parseDouble(j.get("setup_ms")) > 0);
            qps[i] = Long.parseLong(j.get("qps_per_node"));
        }
        assertEquals(27, qps[0], "RC: J x J x (N - 1)");
        assertEquals(9, qps[1], "SRC: J x (N - 1)");
        assertEquals(3, qps[2], "SRD: J");
    }
}
