package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.cli.net.MemifSpec;
import io.srdnic.cli.pktgen.PeerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two srdnic dataplane processes joined by memif; on dataplane A two applications (perf servers),
 * on dataplane B their peers (perf clients), SRD both. One application on A is killed with
 * SIGKILL mid-run: the other's run, through the same dataplane, ends with every message delivered,
 * and A reclaims the dead one's objects and counts it where srdnic stat reads.
 */
class DataplaneKillIT {
    private static final Pattern COUNTER = Pattern.compile("\"dataplane=attach (\\w+)\":(\\d+)");

    @Test
    void shouldKeepOneApplicationsTrafficWhenAnotherOnItsDataplaneIsKilled(@TempDir Path dir) throws Exception {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        long pid = ProcessHandle.current().pid();
        String socket = "/run/srdnic-killit-" + pid + ".sock";
        int survivorPort = 20000 + (int) (pid % 20000);
        int victimPort = survivorPort + 1;
        try (PeerProcess planeA = PeerProcess.start("dataplane A", null, plane(MemifSpec.of("server", socket), a, "10.0.0.1"))) {
            planeA.await("ready", 60_000); // the memif server listens before the client's port starts
            try (PeerProcess planeB = PeerProcess.start("dataplane B", null, plane(MemifSpec.of("client", socket), b, "10.0.0.2"))) {
                planeA.await("link up", 60_000);
                planeB.await("link up", 60_000);
                try (PeerProcess survivor = PeerProcess.start("survivor", null, server(a, survivorPort));
                     PeerProcess victim = PeerProcess.start("victim", null, server(a, victimPort));
                     // Long enough to outlast the kill on a quiet machine (1,000,000 ended within 5 s in CI: over
                     // 200k msg/s attached), short enough for the 240 s limit under load (~20k msg/s: ~150 s).
                     PeerProcess survivorPeer = PeerProcess.start("survivor's peer", null, client(b, survivorPort, 3_000_000));
                     PeerProcess victimPeer = PeerProcess.start("victim's peer", null, client(b, victimPort, 100_000_000))) {
                    Thread.sleep(4_000); // both runs under way (JVM start, attach, warm-up)
                    assertEquals(-1, survivorPeer.exitStatusWithin(0), "the survivor's run is still going when the victim dies");
                    victim.kill();
                    List<String> out = survivorPeer.linesUntilEnd(240_000);
                    assertEquals(0, survivorPeer.exitStatus(10_000), String.join("\n", out));
                    Map<String, String> json = new CliRun(0, String.join("\n", out)).json();
                    assertEquals(json.get("sent"), json.get("received"), "nothing lost: " + json);
                    assertEquals("0", json.get("lost"));
                    assertEquals("0", json.get("errors"));
                    assertEquals(0, survivor.exitStatus(30_000), "the survivor's server ended its run in order");
                    CliRun stat = CliRun.of("stat", "--dir", a.toString(), "--json");
                    Map<String, Long> counters = attachCounters(stat.stdout());
                    assertEquals(1L, counters.get("clients_reclaimed"), "the killed application, reclaimed: " + counters);
                    assertTrue(counters.get("objects_reclaimed") >= 4, "its QP, CQ, MR(s) and PD: " + counters);
                    assertEquals(1L, counters.get("clients_closed"), "the survivor closed its context itself: " + counters);
                    assertEquals(2L, counters.get("clients_attached"));
                }
            }
        }
    }

    private static List<String> plane(String port, Path dir, String ip) {
        return List.of("dataplane", "--port", port, "--dir", dir.toString(), "--ip", ip, "--log-level", "WARNING");
    }

    private static List<String> server(Path dir, int oobPort) {
        return List.of("perf", "--server", "--attach", dir.toString(), "--link", "memif", "--oob-port", Integer.toString(oobPort),
            "--time-limit-s", "240");
    }

    private static List<String> client(Path dir, int oobPort, long iters) {
        return List.of("perf", "--client", "127.0.0.1:" + oobPort, "--attach", dir.toString(), "--link", "memif", "--mode", "bw",
            "--transport", "srd", "--size", "64", "--iters", Long.toString(iters), "--warmup", "1000", "--json", "--time-limit-s", "240");
    }

    private static Map<String, Long> attachCounters(String statJson) {
        Map<String, Long> m = new java.util.HashMap<>();
        Matcher matcher = COUNTER.matcher(statJson);
        while (matcher.find()) {
            m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
        }
        assertTrue(m.containsKey("clients_reclaimed"), "the attach counters in srdnic stat: " + statJson);
        return m;
    }
}
