package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.cli.net.MemifSpec;
import io.srdnic.cli.pktgen.PeerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two srdnic dataplane processes joined by memif; on dataplane A the applications (perf servers),
 * on dataplane B their peers (perf clients). The survivor exchanges SRD and RC traffic (perf runs
 * one transport per process, so the survivor is two perf servers: SRD round trips, and RC round
 * trips whose QPs the dataplanes' connection managers connected); the victim an SRD application
 * (not RC: the CM is the device's, and perf listens on one CM port, which a second RC server on the
 * same dataplane is refused with EADDRINUSE, as a second process on one host would be). The
 * victim is killed with SIGKILL mid-run: the survivor's runs, through the same dataplane, end with
 * every message delivered, and A reclaims the dead one's objects and counts it where srdnic stat
 * reads.
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
        int survivorRcPort = survivorPort + 1;
        int victimPort = survivorPort + 2;
        try (PeerProcess planeA = PeerProcess.start("dataplane A", null, plane(MemifSpec.of("server", socket), a, "10.0.0.1"))) {
            planeA.await("ready", 60_000); // the memif server listens before the client's port starts
            try (PeerProcess planeB = PeerProcess.start("dataplane B", null, plane(MemifSpec.of("client", socket), b, "10.0.0.2"))) {
                planeA.await("link up", 60_000);
                planeB.await("link up", 60_000);
                try (PeerProcess survivor = PeerProcess.start("survivor (SRD)", null, server(a, survivorPort));
                     PeerProcess survivorRc = PeerProcess.start("survivor (RC)", null, server(a, survivorRcPort));
                     PeerProcess victim = PeerProcess.start("victim (SRD)", null, server(a, victimPort));
                     // Round trips, not a window of sends: with six JVMs and two dataplanes on two cores a
                     // starved server does not repost its receives in time, and a bandwidth run's sends then
                     // fail RNR (seen at a load average of 14); one message in flight never outruns its
                     // receives. The run's length is set by time, not by count, so that it outlasts the kill
                     // on a quiet machine and ends well within the limit on a loaded one (round trips ranged
                     // from 1.5k/s to 6k/s at a load average of 15): a warm-up of at least 12 s (its round
                     // trips count in sent and received like the rest), then 20,000 round trips.
                     PeerProcess survivorPeer = PeerProcess.start("survivor's SRD peer", null,
                         client(b, survivorPort, "srd", "lat", 20_000));
                     PeerProcess survivorRcPeer = PeerProcess.start("survivor's RC peer", null,
                         client(b, survivorRcPort, "rc", "lat", 20_000));
                     PeerProcess victimPeer = PeerProcess.start("victim's peer", null, client(b, victimPort, "srd", "bw", 100_000_000))) {
                    // Every run under way before the kill: a perf server attaches once its client has told it
                    // where it is, so three attached on A means three pairs connecting (under a load average of
                    // 17 seven JVMs took more than 4 s to get there, and a victim killed before it attached
                    // tests nothing); then a moment for the connections and the first messages.
                    awaitAttached(a, 3, 180_000);
                    Thread.sleep(2_000);
                    assertEquals(-1, survivorPeer.exitStatusWithin(0), "the survivor's SRD run is still going when the victim dies");
                    assertEquals(-1, survivorRcPeer.exitStatusWithin(0), "the survivor's RC run is still going when the victim dies");
                    victim.kill();
                    for (PeerProcess peer : List.of(survivorPeer, survivorRcPeer)) {
                        List<String> out = peer.linesUntilEnd(240_000);
                        assertEquals(0, peer.exitStatus(10_000), String.join("\n", out));
                        Map<String, String> json = new CliRun(0, String.join("\n", out)).json();
                        assertEquals(json.get("sent"), json.get("received"), "nothing lost: " + json);
                        assertEquals("0", json.get("lost"));
                        assertEquals("0", json.get("errors"));
                    }
                    assertEquals(0, survivor.exitStatus(30_000), "the survivor's SRD server ended its run in order");
                    assertEquals(0, survivorRc.exitStatus(30_000), "the survivor's RC server ended its run in order");
                    CliRun stat = CliRun.of("stat", "--dir", a.toString(), "--json");
                    Map<String, Long> counters = attachCounters(stat.stdout());
                    assertEquals(1L, counters.get("clients_reclaimed"), "the killed application, reclaimed: " + counters);
                    assertTrue(counters.get("objects_reclaimed") >= 4, "its QP, CQ, MR(s) and PD: " + counters);
                    assertEquals(2L, counters.get("clients_closed"), "the survivor closed its contexts itself: " + counters);
                    assertEquals(3L, counters.get("clients_attached"));
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

    /**
     * A perf client; a round-trip run (lat) warms up for at least 12 s before its counted iterations.
     * RC's local ACK timeout is 1.07 s (code 18) rather than the CM's 67 ms: an RC QP gives up after
     * 7 retries of it, and with seven JVMs and two dataplanes on two cores a dataplane thread was seen
     * descheduled for half a second, which ended a run of the default's ~0.54 s in RETRY_EXCEEDED.
     */
    private static List<String> client(Path dir, int oobPort, String transport, String mode, long iters) {
        List<String> args = new ArrayList<>(List.of("perf", "--client", "127.0.0.1:" + oobPort, "--attach", dir.toString(),
            "--link", "memif", "--mode", mode, "--transport", transport, "--size", "64", "--iters", Long.toString(iters),
                    "--warmup", "1000",
            "--warmup-ms", "12000", "--json", "--time-limit-s", "240"));
        if (transport.equals("rc")) {
            args.addAll(List.of("--rc-ack-timeout", "18"));
        }
        return args;
    }

    /** Waits until {@code n} clients have attached to the dataplane in {@code dir}, as srdnic stat shows it. */
    private static void awaitAttached(Path dir, long n, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        Map<String, Long> counters = Map.of();
        while (System.currentTimeMillis() < deadline) {
            counters = attachCounters(CliRun.of("stat", "--dir", dir.toString(), "--json").stdout());
            if (counters.get("clients_attached") >= n) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError(n + " clients did not attach within " + timeoutMillis + " ms: " + counters);
    }

    private static Map<String, Long> attachCounters(String statJson) {
        Map<String, Long> m = new HashMap<>();
        Matcher matcher = COUNTER.matcher(statJson);
        while (matcher.find()) {
            m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
        }
        assertTrue(m.containsKey("clients_reclaimed"), "the attach counters in srdnic stat: " + statJson);
        return m;
    }
}
