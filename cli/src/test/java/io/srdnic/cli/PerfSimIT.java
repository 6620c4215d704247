package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** srdnic perf on the simulated network (virtual time, no DPDK), and its argument checks. */
class PerfSimIT {
    static final List<String> CONTRACT = List.of("p50_us", "p99_us", "p999_us", "msgs_per_sec", "gbps", "raw_p50_us");

    /** The keys are all there; what the mode measures is a positive number, what it does not is null. */
    static void assertContract(Map<String, String> json, String mode, boolean dpdk) {
        for (String key : CONTRACT) {
            assertTrue(json.containsKey(key), "missing " + key + " in " + json);
        }
        assertEquals(mode, json.get("mode"));
        assertPositive(json, "msgs_per_sec");
        if (mode.equals("lat")) {
            for (String key : List.of("min_us", "p50_us", "p99_us", "p999_us", "max_us")) {
                assertPositive(json, key);
            }
            assertEquals("null", json.get("gbps"));
            if (dpdk) {
                assertPositive(json, "raw_p50_us");
                // The raw link's tail, so a transport's p99.9/p50 can be read against the machine's own.
                assertTrue(Double.parseDouble(json.get("raw_p999_us")) >= Double.parseDouble(json.get("raw_p99_us")), json.toString());
                assertTrue(Double.parseDouble(json.get("raw_p99_us")) >= Double.parseDouble(json.get("raw_p50_us")), json.toString());
            } else {
                assertEquals("null", json.get("raw_p50_us"), "no raw ping-pong on sim");
            }
        } else {
            assertPositive(json, "gbps");
            assertEquals("null", json.get("p50_us"));
            assertEquals("null", json.get("raw_p50_us"));
        }
    }

    static void assertPositive(Map<String, String> json, String key) {
        String v = json.get(key);
        assertTrue(v != null && !v.equals("null") && Double.parseDouble(v) > 0, key + " should be positive: " + json);
    }

    @ParameterizedTest
    @CsvSource({"lat,srd", "lat,ud", "bw,srd", "bw,ud"})
    void shouldMeasureBothModesInVirtualTime(String mode, String transport) {
        CliRun run = CliRun.of("perf", "--link", "sim", "--mode", mode, "--transport", transport, "--iters", "3000",
                "--qps", "2", "--json");
        assertEquals(0, run.status(), run.stdout());
        Map<String, String> json = run.json();
        assertContract(json, mode, false);
        assertEquals("virtual", json.get("time"));
        assertEquals(json.get("sent"), json.get("received"), "the default simulated network loses nothing");
        assertTrue(run.stdout().contains("virtual"), "sim output says its times are virtual");
        assertTrue(run.stdout().startsWith("perf " + mode + " " + transport + " over sim: 64 B messages"), "--op send's header as ever: "
                + run.stdout());
        assertTrue(!run.stdout().contains("payload checked"), "a SEND run checks no RDMA region");
    }

    /**
     * RDMA WRITE and READ, messages of many packets: every iteration done, every message counted where
     * it landed, and the bytes checked on the side they land on.
     */
    @ParameterizedTest
    @CsvSource({"lat,write,65536", "lat,read,65536", "bw,write,20000", "bw,read,20000"})
    void shouldMeasureRdmaInVirtualTime(String mode, String op, int size) {
        CliRun run = CliRun.of("perf", "--link", "sim", "--mode", mode, "--op", op, "--size", Integer.toString(size), "--iters", "1500",
            "--qps", "2", "--json");
        assertEquals(0, run.status(), run.stdout());
        Map<String, String> json = run.json();
        assertContract(json, mode, false);
        assertEquals(Integer.toString(size), json.get("size"));
        long warmup = Long.parseLong(json.get("warmup"));
        assertEquals(1500 + warmup, run.number("sent"), "every iteration and warm-up message went out");
        assertEquals(json.get("sent"), json.get("received"), "and landed");
        assertEquals("0", json.get("errors"));
        assertTrue(run.stdout().startsWith("perf " + mode + " srd rdma " + op + " over sim: " + size + " B messages"), run.stdout());
        boolean serverRegion = op.equals("write");
        boolean clientRegion = op.equals("read") || mode.equals("lat");
        assertEquals(serverRegion, run.stdout().contains("the server's region " + size + " B, the pattern in every byte"), run.stdout());
        assertEquals(clientRegion, run.stdout().contains("the client's region " + size + " B, the pattern in every byte"), run.stdout());
    }

    @Test
    void shouldLandEveryRdmaByteDespiteLostPackets() {
        for (String op : List.of("write", "read")) {
            CliRun run = CliRun.of("perf", "--link", "sim", "--mode", "bw", "--op", op, "--size", "20000", "--loss", "0.02",
                    "--iters", "2000",
                "--json");
            assertEquals(0, run.status(), run.stdout());
            assertEquals(run.json().get("sent"), run.json().get("received"));
            assertEquals("0", run.json().get("lost"));
            assertTrue(run.stdout().contains("20000 B, the pattern in every byte"), run.stdout());
        }
    }

    /** A byte flipped where the pattern is made (the client's source of a WRITE, the server's region a READ reads): the run fails. */
    @ParameterizedTest
    @CsvSource({"lat,write,server", "bw,write,server", "lat,read,client", "bw,read,client"})
    void shouldFailWhenALandedByteIsNotWhatWasSent(String mode, String op, String where) {
        Result r = errorRun("perf", "--link", "sim", "--mode", mode, "--op", op, "--size", "3000", "--iters", "300", "--corrupt-payload");
        assertEquals(1, r.status, r.stderr);
        assertTrue(r.stderr.contains("perf: FAILED: byte 1500 of the 3000 B in the " + where + "'s region is not what was sent"), r.stderr);
    }

    /**
     * RC, and SRC in the XRC shape (each message naming the peer's SRQ, told in the CM's accept),
     * every op and mode, messages of many packets (16 at 64 KiB, 5 at 20000 B) over 2 connected
     * QP pairs: every message lands, and the bytes are checked where they land — a SEND's too.
     */
    @ParameterizedTest
    @CsvSource({"rc,lat,send,65536", "rc,bw,send,20000", "rc,lat,write,65536", "rc,bw,write,20000", "rc,lat,read,65536", "rc,bw,read,20000",
        "src,lat,send,65536", "src,bw,send,20000", "src,lat,write,65536", "src,bw,write,20000", "src,lat,read,65536", "src,bw,read,20000"})
    void shouldCarryEveryOpOverConnectedQueuePairsInVirtualTime(String transport, String mode, String op, int size) {
        CliRun run = CliRun.of("perf", "--link", "sim", "--transport", transport, "--mode", mode, "--op", op, "--size",
            Integer.toString(size), "--iters", "1000", "--qps", "2", "--json");
        assertEquals(0, run.status(), run.stdout());
        Map<String, String> json = run.json();
        assertContract(json, mode, false);
        assertEquals(transport, json.get("transport"));
        assertEquals(1000 + Long.parseLong(json.get("warmup")), run.number("sent"));
        assertEquals(json.get("sent"), json.get("received"), transport + " delivers every message");
        assertEquals("0", json.get("errors"));
        String rdma = op.equals("send") ? "" : " rdma " + op;
        assertTrue(run.stdout().startsWith("perf " + mode + " " + transport + rdma + " over sim: " + size + " B messages"), run.stdout());
        boolean serverRegion = !op.equals("read");
        boolean clientRegion = op.equals("read") || mode.equals("lat");
        assertEquals(serverRegion, run.stdout().contains("the server's region " + size + " B, the pattern in every byte"), run.stdout());
        assertEquals(clientRegion, run.stdout().contains("the client's region " + size + " B, the pattern in every byte"), run.stdout());
    }

    /** A byte flipped where the pattern is made: an RC SEND's, WRITE's or READ's bytes are not what was sent, and the run fails. */
    @ParameterizedTest
    @CsvSource({"lat,send,server", "bw,send,server", "bw,write,server", "lat,read,client"})
    void shouldFailAnRcRunWhoseBytesDoNotLandAsSent(String mode, String op, String where) {
        Result r = errorRun("perf", "--link", "sim", "--transport", "rc", "--mode", mode, "--op", op, "--size", "9000", "--iters", "300",
            "--corrupt-payload");
        assertEquals(1, r.status, r.stderr);
        assertTrue(r.stderr.contains("perf: FAILED: byte 4500 of the 9000 B in the " + where + "'s region is not what was sent"), r.stderr);
    }

    /** 2% loss each way: RC repairs it on one path (rc-paths=1) and sprayed over 16 alike; every message and byte lands. */
    @ParameterizedTest
    @CsvSource({"1,lat,send", "16,lat,send", "1,bw,write", "16,bw,write"})
    void shouldRepairLostRcPacketsPinnedOrSprayed(int paths, String mode, String op) {
        CliRun run = CliRun.of("perf", "--link", "sim", "--transport", "rc", "--mode", mode, "--op", op, "--size", "20000",
                "--loss", "0.02",
            "--iters", "500", "--set", "rc-paths=" + paths, "--json");
        assertEquals(0, run.status(), run.stdout());
        assertEquals(run.json().get("sent"), run.json().get("received"));
        assertEquals("0", run.json().get("lost"));
        assertTrue(run.stdout().contains("the server's region 20000 B, the pattern in every byte"), run.stdout());
    }

    /**
     * 70% loss each way: an RC QP spends its 7 retries and goes to ERROR, on whichever side a packet
     * ran out first. The run fails at once, naming RETRY_EXCEEDED — also when it is the server's
     * reply that failed, which the client would otherwise wait for until the time limit. The CM's
     * handshake crosses the same lossy link: at 90% it may never complete, and the run fails at
     * once saying so (UNREACHABLE after the CM's retries).
     */
    @ParameterizedTest
    @CsvSource({"lat,0.7", "bw,0.9"})
    void shouldFailAtOnceWhenAnRcConnectionFails(String mode, String loss) {
        long start = System.nanoTime();
        Result r = errorRun("perf", "--link", "sim", "--transport", "rc", "--mode", mode, "--loss", loss, "--iters", "100");
        assertEquals(1, r.status, r.stderr);
        assertTrue(r.stderr.contains("RETRY_EXCEEDED_ERROR (SEND)")
            || (loss.equals("0.9") && r.stderr.contains("connecting RC QPs through the CM: UNREACHABLE")), r.stderr);
        assertTrue(System.nanoTime() - start < 60_000_000_000L, "long before the 300 s time limit");
    }

    @Test
    void shouldTimeOutLostUdRoundTripsButRepairEverySrdLoss() {
        CliRun ud = CliRun.of("perf", "--link", "sim", "--transport", "ud", "--loss", "0.05", "--iters", "2000",
                "--timeout-ms", "1", "--json");
        assertEquals(0, ud.status(), "UD loses messages: that is no failure, " + ud.stdout());
        assertTrue(Long.parseLong(ud.json().get("timeouts")) > 0, "5% loss each way must time some round trips out: " + ud.stdout());
        assertContract(ud.json(), "lat", false);
        CliRun srd = CliRun.of("perf", "--link", "sim", "--transport", "srd", "--loss", "0.05", "--iters", "2000", "--json");
        assertEquals(0, srd.status(), srd.stdout());
        assertEquals("0", srd.json().get("timeouts"));
        assertEquals(srd.json().get("sent"), srd.json().get("received"));
        CliRun bw = CliRun.of("perf", "--link", "sim", "--transport", "srd", "--mode", "bw", "--loss", "0.05", "--iters", "5000", "--json");
        assertEquals(0, bw.status(), bw.stdout());
        assertEquals("0", bw.json().get("lost"));
    }

    @Test
    void shouldGiveTheSameVirtualLatencyForTheSameSeed() {
        String a = CliRun.of("perf", "--link", "sim", "--iters", "500", "--seed", "7", "--json").json().get("p50_us");
        String b = CliRun.of("perf", "--link", "sim", "--iters", "500", "--seed", "7", "--json").json().get("p50_us");
        assertEquals(a, b);
    }

    @Test
    void shouldApplySrdSettingsGivenWithSet() {
        assertEquals(0, CliRun.of("perf", "--link", "sim", "--size", "2000", "--iters", "200").status());
        assertRefused("over this link's SRD MTU 1024", "perf", "--link", "sim", "--size", "2000", "--iters", "200", "--set", "mtu=1024");
        CliRun undelayed = CliRun.of("perf", "--link", "sim", "--iters", "500", "--set", "delayed-ack=false", "--json");
        assertEquals(0, undelayed.status(), undelayed.stdout());
        assertEquals(undelayed.json().get("sent"), undelayed.json().get("received"));
        assertRefused("unknown SRD setting 'bogus'", "perf", "--link", "sim", "--set", "bogus=1");
        assertRefused("SRD setting delayed-ack=maybe is not true or false", "perf", "--link", "sim", "--set", "delayed-ack=maybe");
        assertRefused("SRD setting rto-min-us=soon is not a number", "perf", "--link", "sim", "--set", "rto-min-us=soon");
    }

    @Test
    void shouldRejectBadArgumentsWithAClearError() {
        assertEquals(2, errorRun("perf", "--mode", "sideways").status, "picocli: not a mode");
        assertEquals(2, errorRun("perf", "--transport", "iwarp").status, "picocli: not a transport");
        assertEquals(2, errorRun("perf", "--link", "carrier-pigeon").status);
        assertRefused("--size must be 1..4096", "perf", "--size", "0");
        assertRefused("--size must be 1..4096", "perf", "--size", "5000", "--link", "sim");
        assertRefused("--qps must be 1..64", "perf", "--qps", "0", "--link", "sim");
        assertRefused("--iters must be", "perf", "--iters", "0", "--link", "sim");
        assertRefused("--window must be", "perf", "--window", "0", "--link", "sim", "--mode", "bw");
        assertRefused("--threading must be invoker or dedicated", "perf", "--threading", "sometimes", "--link", "sim");
        assertRefused("ring, tap and sim run both sides in one process", "perf", "--link", "sim", "--server");
        assertRefused("ring, tap and sim run both sides in one process", "perf", "--link", "tap", "--client", "localhost:18515");
        assertRefused("--client takes HOST:PORT", "perf", "--link", "memif", "--client", "localhost");
        assertRefused("exclude each other", "perf", "--link", "memif", "--server", "--client", "localhost:1");
        assertRefused("needs --iface", "perf", "--link", "af_xdp", "--client", "localhost:18515");
        assertRefused("--loss is for --link sim", "perf", "--link", "ring", "--loss", "0.1");
        assertRefused("--warmup-ms must be 0..600000", "perf", "--link", "sim", "--warmup-ms", "-1");
        assertRefused("--cpu must be -1..", "perf", "--link", "sim", "--cpu", "4096");
        assertEquals(2, errorRun("perf", "--op", "atomic").status, "picocli: not an op");
        Result udWrite = errorRun("perf", "--link", "sim", "--transport", "ud", "--op", "write");
        assertEquals(2, udWrite.status, "a usage error: UD has no RDMA");
        assertTrue(udWrite.stderr.contains("--op write needs RDMA, which ud queue pairs do not have: use --transport srd or rc"),
                udWrite.stderr);
        assertTrue(udWrite.stderr.contains("Usage: srdnic perf"), udWrite.stderr);
        assertEquals(2, errorRun("perf", "--link", "sim", "--transport", "ud", "--op", "read", "--mode", "bw").status);
        assertRefused("--size must be 1..1073741824 bytes with --op read", "perf", "--link", "sim", "--op", "read", "--size", "0");
        assertRefused("--size must be 1..1073741824 bytes with --op write", "perf", "--link", "sim", "--op", "write",
                "--size", "1073741825");
        assertRefused("--op write and read go up to 1 GiB", "perf", "--link", "sim", "--size", "5000");
        Result rcSize = errorRun("perf", "--link", "sim", "--transport", "rc", "--size", "1073741825");
        assertEquals(2, rcSize.status, "a usage error");
        assertTrue(rcSize.stderr.contains("--size must be 1..1073741824 bytes with --transport rc --op send"), rcSize.stderr);
        Result rcPaths = errorRun("perf", "--link", "sim", "--transport", "srd", "--set", "rc-paths=1");
        assertEquals(2, rcPaths.status, "a usage error");
        assertTrue(rcPaths.stderr.contains("--set rc-paths is the path count of RC queue pairs: it needs --transport rc"), rcPaths.stderr);
        assertRefused("rc-paths must be 1..64", "perf", "--link", "sim", "--transport", "rc", "--set", "rc-paths=65", "--iters", "10");
    }

    private static void assertRefused(String message, String... args) {
        Result r = errorRun(args);
        assertNotEquals(0, r.status, "should fail: " + String.join(" ", args));
        assertTrue(r.stderr.contains(message), "expected '" + message + "' in: " + r.stderr);
    }

    private record Result(int status, String stderr) {
    }

    private static Result errorRun(String... args) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        int status;
        try {
            status = CliRun.of(args).status();
        } finally {
            System.setErr(original);
        }
        String err = captured.toString(StandardCharsets.UTF_8);
        original.print(err);
        return new Result(status, err);
    }
}
