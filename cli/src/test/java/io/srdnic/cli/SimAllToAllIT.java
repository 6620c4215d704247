package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code srdnic sim --all-to-all}: the JSON fields issue 10 names, for each transport, every message delivered. */
class SimAllToAllIT {

    @Test
    void shouldReportTheCostPerNodeOfFullConnectivityForEachTransport() {
        long[] qps = new long[3];
        String[] transports = {"rc", "src", "srd"};
        for (int i = 0; i < 3; i++) {
            CliRun run = CliRun.of("sim", "--all-to-all", "--nodes", "4", "--jobs", "3", "--transport", transports[i], "--size", "64",
                "--loss", "0.02", "--seed", "3", "--json");
            assertEquals(0, run.status(), run.stdout());
            Map<String, String> j = run.json();
            assertEquals(transports[i], j.get("transport"));
            assertEquals("4", j.get("nodes"));
            assertEquals("3", j.get("jobs"));
            assertEquals("108", j.get("messages"));
            assertEquals(j.get("messages"), j.get("delivered"));
            assertTrue(run.number("state_bytes_per_node") > 0 && run.number("contexts_per_node") > 0);
            assertTrue(Double.parseDouble(j.get("setup_ms")) > 0);
            qps[i] = run.number("qps_per_node");
        }
        assertEquals(27, qps[0], "RC: J x J x (N - 1)");
        assertEquals(9, qps[1], "SRC: J x (N - 1)");
        assertEquals(3, qps[2], "SRD: J");
    }
}
