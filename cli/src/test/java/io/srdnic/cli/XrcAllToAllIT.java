package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * srdnic xrc-all-to-all: two nodes of 4 jobs each over SRC queue pairs in the XRC shape, each job's
 * one XRC_SEND QP reaching every job of the other node, connected by the CM alone; every message
 * checked at the job it is for. memif runs each node in its own JVM, sharing only the memif link.
 */
class XrcAllToAllIT {

    @ParameterizedTest
    @ValueSource(strings = {"sim", "ring", "memif"})
    void shouldDeliverEveryJobsMessagesIntactToEveryRemoteJob(String link) {
        Set<String> ealDirsBefore = PktgenTwoProcessIT.ealRuntimeDirs();
        CliRun run = CliRun.of("xrc-all-to-all", "--link", link, "--jobs", "4", "--messages", "200", "--size", "512", "--json");
        assertEquals(0, run.status(), run.stdout());
        List<String> reports = run.stdout().lines().filter(l -> l.startsWith("xrc-all-to-all over " + link)).toList();
        assertEquals(2, reports.size(), run.stdout());
        for (String r : reports) {
            assertTrue(r.contains("8 QPs (4 XRC_SEND, 4 XRC_RECV), 3200 of 3200 messages of 512 B delivered and checked, 3200 sends"
                + " completed"), r);
        }
        assertEquals("3200", run.json().get("delivered"));
        assertEquals("null", run.json().get("failure"));
        if (link.equals("memif")) {
            Set<String> leftBehind = new HashSet<>(PktgenTwoProcessIT.ealRuntimeDirs());
            leftBehind.removeAll(ealDirsBefore);
            assertEquals(Set.of(), leftBehind, "EAL runtime directories left behind");
        }
    }
}
