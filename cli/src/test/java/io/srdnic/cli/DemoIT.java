package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's main job, as a newcomer runs it (smaller counts): it passes, and its loss run repaired every loss. */
class DemoIT {

    @Test
    void shouldRunTheReadmeDemoAndRepairEveryInjectedLoss() {
        CliRun run = CliRun.of("demo", "--ping-pongs", "2000", "--messages", "20000", "--lossy-messages", "5000");
        assertEquals(0, run.status(), run.stdout());
        assertTrue(run.stdout().contains("ping-pong: 2000 round trips of 64-byte messages"), run.stdout());
        assertTrue(run.stdout().contains("bandwidth: 20000 messages of 4096 bytes"), run.stdout());
        Matcher loss = Pattern.compile("\\((\\d+) data and ACK frames dropped\\)").matcher(run.stdout());
        assertTrue(loss.find() && Long.parseLong(loss.group(1)) > 0, "the lossy run dropped frames: " + run.stdout());
        assertTrue(run.stdout().contains("5000 delivered, 0 lost, 0 duplicated, 5000 completed with success"), run.stdout());
        Matcher repaired = Pattern.compile("(\\d+) retransmissions repaired the losses").matcher(run.stdout());
        assertTrue(repaired.find() && Long.parseLong(repaired.group(1)) > 0, run.stdout());
        assertTrue(run.stdout().contains("demo: every message arrived exactly once"), run.stdout());
    }
}
