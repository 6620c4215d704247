package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * srdnic cm-pingpong: RC connections made by the connection manager alone, with private data both
 * ways, used and taken down, one after another. memif runs the server and the client in two JVMs
 * that share nothing but the memif link: no side channel of any kind carries a QP number or PSN.
 */
class CmPingPongIT {

    @ParameterizedTest
    @ValueSource(strings = {"sim", "ring", "memif"})
    void shouldRunAConnectionsWholeLifeThroughTheCmAlone(String link) {
        Set<String> ealDirsBefore = PktgenTwoProcessIT.ealRuntimeDirs();
        CliRun run = CliRun.of("cm-pingpong", "--link", link, "--connections", "5", "--iters", "50", "--json");
        assertEquals(0, run.status(), run.stdout());
        Map<String, String> json = run.json();
        assertEquals("null", json.get("failure"));
        assertEquals(link, json.get("link"));
        assertEquals("250", json.get("round_trips"), "every ping of every connection came back");
        assertTrue(Double.parseDouble(json.get("setup_both_median_us")) > 0);
        if (link.equals("memif")) {
            Set<String> leftBehind = new HashSet<>(PktgenTwoProcessIT.ealRuntimeDirs());
            leftBehind.removeAll(ealDirsBefore);
            assertEquals(Set.of(), leftBehind, "EAL runtime directories left behind");
        }
    }
}
