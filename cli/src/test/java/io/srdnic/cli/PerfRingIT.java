package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * srdnic perf over a net_ring pair in this JVM (one thread per side; EAL starts once here and every
 * run reuses it), latency and bandwidth, SRD, UD and RC: exit status 0 and the JSON contract's keys.
 */
class PerfRingIT {

    @ParameterizedTest
    @CsvSource({"lat,srd", "lat,ud", "bw,srd", "bw,ud"})
    void shouldMeasureBothModesOverARingPair(String mode, String transport) {
        // lat srd asks for a timed warm-up of 2 s; lat ud turns it off: --warmup round trips only.
        boolean timedWarmup = mode.equals("lat") && transport.equals("srd");
        CliRun run = CliRun.of("perf", "--link", "ring", "--mode", mode, "--transport", transport, "--size", "64",
            "--iters", mode.equals("lat") ? "2000" : "20000", "--warmup-ms", timedWarmup ? "2000" : "0", "--json");
        assertEquals(0, run.status(), run.stdout());
        Map<String, String> json = run.json();
        PerfSimIT.assertContract(json, mode, true);
        assertEquals("ring", json.get("link"));
        assertEquals(Runtime.getRuntime().availableProcessors() >= 2 ? "0" : "null", json.get("client_cpus"),
            "the client's polling thread pinned to the first CPU (the server's to the next)");
        assertEquals(transport, json.get("transport"));
        if (transport.equals("srd")) {
            assertEquals(json.get("sent"), json.get("received"), "SRD delivers every message");
            assertEquals("0", json.get("lost"));
        }
        if (mode.equals("lat")) {
            assertTrue(Double.parseDouble(json.get("p50_us")) >= Double.parseDouble(json.get("min_us")));
            long warmup = Long.parseLong(json.get("warmup"));
            double warmupMs = Double.parseDouble(json.get("warmup_ms"));
            if (timedWarmup) {
                assertTrue(warmup >= 2000 && warmupMs >= 2000, "at least the asked round trips and at least 2 s of them: " + json);
            } else {
                assertEquals(2000, warmup, "exactly the asked round trips: " + json);
            }
        }
    }

    /**
     * RDMA WRITE and READ over the ring pair: one packet (lat: the raw ping-pong runs too) and 64 KiB
     * (16 packets, landing in any order; no raw frame that long). Every message lands, the side it
     * lands on checks every byte.
     */
    @ParameterizedTest
    @CsvSource({"lat,write,2048", "lat,read,65536", "bw,write,65536", "bw,read,2048"})
    void shouldMeasureRdmaOverARingPair(String mode, String op, int size) {
        CliRun run = CliRun.of("perf", "--link", "ring", "--mode", mode, "--op", op, "--size", Integer.toString(size),
            "--iters", mode.equals("lat") ? "2000" : "5000", "--warmup-ms", "0", "--window", "16", "--json");
        assertEquals(0, run.status(), run.stdout());
        Map<String, String> json = run.json();
        boolean onePacket = size <= 4096;
        PerfSimIT.assertContract(json, mode, onePacket);
        if (!onePacket) {
            assertEquals("null", json.get("raw_p50_us"), "no raw frame as long as a 64 KiB message");
        }
        assertEquals("ring", json.get("link"));
        long iters = mode.equals("lat") ? 2000 : 5000;
        assertEveryMessageLandedAndChecked(run, iters + Long.parseLong(json.get("warmup")), "perf " + mode + " srd rdma " + op,
            op.equals("write") ? "the server's region " : "the client's region ", size);
    }

    /** Every message sent landed without error, the header names the run, and {@code region} held the pattern in every byte. */
    private static void assertEveryMessageLandedAndChecked(CliRun run, long sent, String header, String region, int size) {
        Map<String, String> json = run.json();
        assertEquals(sent, run.number("sent"));
        assertEquals(json.get("sent"), json.get("received"), "every message landed");
        assertEquals("0", json.get("errors"));
        assertTrue(run.stdout().startsWith(header + " over ring: " + size + " B messages"), run.stdout());
        assertTrue(run.stdout().contains(region + size + " B, the pattern in every byte"), run.stdout());
    }

    @Test
    void shouldFailAWriteWhoseBytesDoNotLandAsSent() {
        CliRun run = CliRun.of("perf", "--link", "ring", "--mode", "bw", "--op", "write", "--size", "10000", "--iters", "2000",
            "--corrupt-payload", "--json");
        assertEquals(1, run.status(), run.stdout());
        assertTrue(run.stdout().contains("byte 5000 of the 10000 B in the server's region is not what was sent"), run.stdout());
        assertEquals(run.json().get("sent"), run.json().get("received"), "every WRITE landed: the bytes are what is wrong");
    }

    /**
     * RC and SRC over the ring pair: connected QPs (QPNs, PSNs, regions and SRQ numbers through the
     * connection manager), every op and mode, one packet (lat send: the raw ping-pong runs too) and
     * many; every message lands and its bytes are checked where they land.
     */
    @ParameterizedTest
    @CsvSource({"rc,lat,send,64", "rc,bw,send,20000", "rc,lat,write,65536", "rc,bw,write,20000", "rc,lat,read,2048", "rc,bw,read,65536",
        "src,lat,send,64", "src,bw,send,20000", "src,lat,write,65536", "src,bw,read,65536"})
    void shouldCarryEveryOpOverConnectedQueuePairsOnARingPair(String transport, String mode, String op, int size) {
        long iters = mode.equals("lat") ? 500 : 1000;
        CliRun run = CliRun.of("perf", "--link", "ring", "--transport", transport, "--mode", mode, "--op", op, "--size",
            Integer.toString(size), "--iters", Long.toString(iters), "--warmup", "500", "--warmup-ms", "0", "--window", "16", "--json");
        assertEquals(0, run.status(), run.stdout());
        Map<String, String> json = run.json();
        PerfSimIT.assertContract(json, mode, size <= 4096);
        assertEquals(transport, json.get("transport"));
        assertEveryMessageLandedAndChecked(run, iters + 500, "perf " + mode + " " + transport + (op.equals("send") ? "" : " rdma " + op),
            op.equals("read") ? "the client's region " : "the server's region ", size);
    }

    @Test
    void shouldFailAnRcSendWhoseBytesDoNotLandAsSent() {
        CliRun run = CliRun.of("perf", "--link", "ring", "--transport", "rc", "--mode", "bw", "--size", "10000", "--iters", "500",
            "--warmup", "100", "--window", "16", "--corrupt-payload", "--json");
        assertEquals(1, run.status(), run.stdout());
        assertTrue(run.stdout().contains("byte 5000 of the 10000 B in the server's region is not what was sent"), run.stdout());
        assertEquals(run.json().get("sent"), run.json().get("received"), "every SEND arrived: the bytes are what is wrong");
    }

    @Test
    void shouldMeasureTheRawPingPongBaselineOverARingPair() {
        CliRun run = CliRun.of("pktgen", "--mode", "pingpong", "--link", "ring", "--iters", "3000", "--size", "154", "--json");
        assertEquals(0, run.status(), run.stdout());
        Map<String, String> json = run.json();
        assertEquals("3000", json.get("measured"));
        assertEquals("0", json.get("lost"));
        for (String key : new String[] {"min_us", "p50_us", "p99_us", "p999_us", "max_us", "round_trips_per_sec"}) {
            PerfSimIT.assertPositive(json, key);
        }
        assertTrue(Double.parseDouble(json.get("p99_us")) >= Double.parseDouble(json.get("p50_us")));
    }
}
