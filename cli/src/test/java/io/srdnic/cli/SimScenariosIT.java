package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The SRD issue's named scenarios, each a {@code srdnic sim} command line and its JSON. CI runs
 * them scaled down; {@code -Psrd-full-scenarios} (system property srdnic.scenarios=full) runs the
 * full sizes.
 */
class SimScenariosIT {
    static final boolean FULL = "full".equals(System.getProperty("srdnic.scenarios"));

    static String messages(long ci, long full) {
        return Long.toString(FULL ? full : ci);
    }

    @Test
    void shouldDeliverEveryMessageExactlyOnceUnderLossDuplicationAndHeavyReordering() {
        CliRun run = CliRun.of("sim", "--hosts", "2", "--messages", messages(60_000, 1_000_000), "--size", "1024",
            "--loss", "0.1", "--dup", "0.05", "--reorder", "0.5", "--paths", "16", "--seed", "11", "--json");
        assertEquals(0, run.status(), run.stdout());
        Map<String, String> j = run.json();
        assertEquals(j.get("messages"), j.get("completed_ok"));
        assertEquals("0", j.get("lost"));
        assertEquals("0", j.get("duplicates_delivered"));
        assertTrue(run.number("retransmits") > 0, "loss was repaired by retransmission");
    }

    @Test
    void shouldLoseLessThanATenthOfGoodputToOneBlackholedPathOfSixteen() {
        String n = messages(40_000, 1_000_000);
        CliRun clean = CliRun.of("sim", "--hosts", "2", "--messages", n, "--size", "4096", "--paths", "16", "--seed", "5", "--json");
        CliRun holed = CliRun.of("sim", "--hosts", "2", "--messages", n, "--size", "4096", "--paths", "16",
            "--blackhole-paths", "7", "--seed", "5", "--json");
        assertEquals(0, clean.status());
        assertEquals(0, holed.status());
        double ratio = Double.parseDouble(holed.json().get("goodput_gbps")) / Double.parseDouble(clean.json().get("goodput_gbps"));
        System.out.printf("blackhole goodput ratio %.3f%n", ratio);
        assertTrue(ratio > 0.9, "one dead path of 16 must cost under 10% of goodput, ratio " + ratio);
        assertTrue(holed.number("dropped_packets") > 0, "the dead path did drop packets");
    }

    @Test
    void shouldControlIncastCongestion() {
        CliRun run = CliRun.of("sim", "--hosts", "17", "--incast", "--messages", messages(40_000, 1_000_000), "--size", "4096",
            "--paths", "16", "--link-gbps", "100", "--seed", "2", "--json");
        assertEquals(0, run.status(), run.stdout());
        double goodput = Double.parseDouble(run.json().get("goodput_gbps"));
        long maxQueue = run.number("max_queue_bytes");
        System.out.printf("incast goodput %.2f Gbit/s, deepest queue %d bytes%n", goodput, maxQueue);
        assertTrue(goodput > 90, "16-to-1 incast goodput must stay above 90% of the 100 Gbit/s bottleneck: " + goodput);
        assertTrue(maxQueue < 1024 * 1024 / 2, "the bottleneck queue must stay under half its 1 MiB: " + maxQueue);
    }

    @Test
    void shouldFailItsOwnChecksWhenMessagesCannotComplete() {
        // Every path dead: nothing can be delivered; the run must say so and exit non-zero.
        CliRun run = CliRun.of("sim", "--hosts", "2", "--messages", "100", "--size", "64", "--paths", "2",
            "--blackhole-paths", "0,1", "--time-limit-ms", "20", "--json");
        assertEquals(1, run.status());
        assertTrue(run.number("lost") > 0 || run.json().get("completed_error_by_status").length() > 2);
    }
}
