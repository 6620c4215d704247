package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The UDP checksum offloaded to a real driver: net_tap advertises RTE_ETH_TX/RX_OFFLOAD_UDP_CKSUM
 * and computes and verifies the checksum in its own code, as a NIC does in hardware. srdnic then
 * writes only the pseudo-header's sum, so every frame on the wire is right only if the driver was
 * asked and did its part: tshark, capturing the bridge between the two taps, checks them all.
 */
class PerfTapIT {
    private static final Pattern OFFLOADED = Pattern.compile("udp_checksums_offloaded=(\\d+)");

    @Test
    void shouldLeaveEveryUdpChecksumToTheTapDriverAndFindEachOneRightOnTheWire(@TempDir Path dir) throws Exception {
        assumeTrue(CliRun.root(), "tap devices, a bridge and a capture on them need root");
        Tshark tshark = Tshark.find();
        Path pcap = dir.resolve("tap.pcapng");
        Process capture = startCapture(tshark, pcap, dir.resolve("capture.err"));
        CliRun srd;
        CliRun rcWrite;
        try {
            srd = CliRun.of("perf", "--link", "tap", "--mode", "bw", "--transport", "srd", "--size", "1024", "--iters", "5000", "--stats",
                "--json");
            rcWrite = CliRun.of("perf", "--link", "tap", "--mode", "bw", "--transport", "rc", "--op", "write", "--size", "65536",
                "--iters", "100", "--stats", "--json");
        } finally {
            capture.destroy(); // SIGTERM: tshark closes the file
            assertTrue(capture.waitFor(30, TimeUnit.SECONDS), "tshark stopped");
        }
        for (CliRun run : List.of(srd, rcWrite)) {
            assertEquals(0, run.status(), run.output());
            assertEquals(run.number("sent"), run.number("received"), run.output());
            assertEquals(0, run.number("errors"), run.output());
            List<Long> offloaded = OFFLOADED.matcher(run.output()).results().map(r -> Long.parseLong(r.group(1))).toList();
            assertEquals(2, offloaded.size(), "both sides report the counter (the server on stderr): " + run.output());
            for (long n : offloaded) {
                assertTrue(n >= 100, "each side left its frames' checksums to the driver: " + run.output());
            }
        }

        Map<String, Integer> statuses = new TreeMap<>();
        for (String status : tshark.run("-r", pcap.toString(), "-o", "udp.check_checksum:TRUE", "-Y", "udp.port == 21330", "-T",
            "fields", "-e", "udp.checksum.status")) {
            statuses.merge(status.strip(), 1, Integer::sum);
        }
        // udp.checksum.status: 1 good, 0 bad, 2 unverified (a zero checksum: none sent).
        assertEquals(null, statuses.get("0"), "frames whose checksum the driver got wrong: " + statuses);
        assertEquals(null, statuses.get("2"), "frames sent with no checksum at all: " + statuses);
        assertTrue(statuses.getOrDefault("1", 0) >= 2 * 5000 + 2 * 100 * 46, "the runs' frames were captured and checked: " + statuses);
    }

    /** tshark on every interface (the taps and bridge appear during the run), SRD's port only; returns once it captures. */
    private static Process startCapture(Tshark tshark, Path pcap, Path err) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(tshark.executable().toString(), "-q", "-i", "any", "-f", "udp port 21330", "-w", pcap.toString())
            .redirectErrorStream(true).redirectOutput(err.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.readString(err).contains("Capturing on")) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new AssertionError("tshark did not start capturing: " + Files.readString(err));
            }
            Thread.sleep(50);
        }
        return p;
    }
}
