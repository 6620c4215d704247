package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.cli.net.MemifSpec;
import io.srdnic.cli.pktgen.PeerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code srdnic dataplane --lcores 2} on a real DPDK link: dataplane A (two lcores) and dataplane
 * B (one) joined by memif. One application attaches to each of A's lcores (DIR and DIR/lcore-1),
 * each served by a peer attached to B; both SRD runs end with every message delivered, and A's
 * counters show the flow ownership: lcore 0 receives the port and handed lcore 1's frames over,
 * lcore 1 took them and handed its replies back to be sent, no frame lacked an owner, and each
 * context delivered its own application's messages.
 */
class DataplaneLcoresIT {
    private static final Pattern LCORE = Pattern.compile("\"dataplane=lcore,lcore=(\\d+) (\\w+)\":(\\d+)");
    private static final Pattern DELIVERED = Pattern.compile("\"device=([\\w-]+) delivered\":(\\d+)");
    private static final int MESSAGES = 20_000;
    private static final int WARMUP = 1_000;

    @Test
    void shouldDeliverTrafficForContextsOwnedByBothLcoresThroughTheHandOff(@TempDir Path dir) throws Exception {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        long pid = ProcessHandle.current().pid();
        String socket = "/run/srdnic-lcoresit-" + pid + ".sock";
        int oob0 = 20000 + (int) (pid % 20000);
        int oob1 = oob0 + 1;
        // A takes its options from a --config file, its two lcores among them (the hand-off below needs both), and a transport
        // setting that its counters show (four paths).
        Path conf = Files.writeString(dir.resolve("a.conf"), "# dataplane A\nport = " + MemifSpec.of("server", socket) + "\ndir = " + a
            + "\nip = 10.0.0.1\nlcores = 2\nlog-level = WARNING\nset.paths = 4\n");
        try (PeerProcess planeA = PeerProcess.start("dataplane A", null, List.of("dataplane", "--config", conf.toString()))) {
            planeA.await("ready", 60_000);
            try (PeerProcess planeB = PeerProcess.start("dataplane B", null, plane(MemifSpec.of("client", socket), b, "10.0.0.9", 1))) {
                planeA.await("link up", 60_000);
                planeB.await("link up", 60_000);
                try (PeerProcess server0 = PeerProcess.start("lcore 0's application", null, server(a, oob0));
                     PeerProcess server1 = PeerProcess.start("lcore 1's application", null, server(a.resolve("lcore-1"), oob1));
                     PeerProcess client0 = PeerProcess.start("lcore 0's peer", null, client(b, oob0));
                     PeerProcess client1 = PeerProcess.start("lcore 1's peer", null, client(b, oob1))) {
                    for (PeerProcess c : List.of(client0, client1)) {
                        List<String> out = c.linesUntilEnd(180_000);
                        assertEquals(0, c.exitStatus(10_000), String.join("\n", out));
                        Map<String, String> json = new CliRun(0, String.join("\n", out)).json();
                        assertEquals(Integer.toString(MESSAGES + WARMUP), json.get("received"), "every message arrived: " + json);
                        assertEquals("0", json.get("lost"));
                        assertEquals("0", json.get("errors"));
                    }
                    assertEquals(0, server0.exitStatus(30_000));
                    assertEquals(0, server1.exitStatus(30_000));
                }
                Thread.sleep(100); // the counters are copied every 10 ms
                String stat = CliRun.of("stat", "--dir", a.toString(), "--json").stdout();
                Map<String, Long> lcore0 = lcoreCounters(stat, 0);
                Map<String, Long> lcore1 = lcoreCounters(stat, 1);
                assertTrue(lcore0.get("handoff_frames_out") >= MESSAGES + WARMUP, "lcore 0 passed lcore 1's frames on: " + lcore0);
                assertEquals(lcore0.get("handoff_frames_out"), lcore1.get("handoff_frames_in"),
                    "lcore 1 took every frame handed to it: " + lcore1);
                assertTrue(lcore1.get("handoff_frames_out") > 0, "lcore 1's ACKs went back to lcore 0 to be sent: " + lcore1);
                assertEquals(lcore1.get("handoff_frames_out"), lcore0.get("handoff_frames_in"), "and lcore 0 sent them all");
                assertEquals(0L, lcore0.get("no_owner_drops"), "every frame had an owner: " + lcore0);
                assertTrue(lcore0.get("duty_cycles") > 0 && lcore1.get("duty_cycles") > 0, "both loops ran");
                // set.paths = 4 reached A's transports: its contexts spray over paths 0..3, not the default 16
                assertTrue(stat.contains(",path=3 "), "A's per-path counters: " + stat.substring(0, Math.min(2000, stat.length())));
                assertFalse(stat.contains(",path=4 "), "a fifth path: the config file's transport setting did not reach the contexts");
                Map<String, Long> delivered = delivered(stat);
                assertEquals(MESSAGES + WARMUP, delivered.get("net_memif0"),
                        "lcore 0's context delivered its application's messages: " + delivered);
                assertEquals(MESSAGES + WARMUP, delivered.get("net_memif0-lcore1"), "and lcore 1's its own: " + delivered);
                long stopping = System.nanoTime();
                planeA.terminate();
                assertTrue(System.nanoTime() - stopping < 20_000_000_000L, "both lcores stopped in order on SIGTERM");
            }
        }
    }

    private static List<String> plane(String port, Path dir, String ip, int lcores) {
        return List.of("dataplane", "--port", port, "--dir", dir.toString(), "--ip", ip, "--lcores", Integer.toString(lcores),
            "--log-level", "WARNING");
    }

    private static List<String> server(Path dir, int oobPort) {
        return List.of("perf", "--server", "--attach", dir.toString(), "--link", "memif", "--oob-port", Integer.toString(oobPort),
            "--time-limit-s", "180");
    }

    private static List<String> client(Path dir, int oobPort) {
        return List.of("perf", "--client", "127.0.0.1:" + oobPort, "--attach", dir.toString(), "--link", "memif", "--mode", "bw",
            "--transport", "srd", "--size", "64", "--iters", Integer.toString(MESSAGES), "--warmup", Integer.toString(WARMUP), "--json",
            "--time-limit-s", "180");
    }

    private static Map<String, Long> lcoreCounters(String statJson, int lcore) {
        Map<String, Long> m = new HashMap<>();
        Matcher matcher = LCORE.matcher(statJson);
        while (matcher.find()) {
            if (Integer.parseInt(matcher.group(1)) == lcore) {
                m.put(matcher.group(2), Long.parseLong(matcher.group(3)));
            }
        }
        assertTrue(m.containsKey("handoff_frames_out"), "lcore " + lcore + "'s counters in srdnic stat: " + statJson);
        return m;
    }

    private static Map<String, Long> delivered(String statJson) {
        Map<String, Long> m = new HashMap<>();
        Matcher matcher = DELIVERED.matcher(statJson);
        while (matcher.find()) {
            m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
        }
        return m;
    }
}
