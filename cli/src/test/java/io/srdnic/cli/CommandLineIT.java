package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Help, bad arguments and failures give the right exit status. */
class CommandLineIT {
    @Test
    void shouldPrintHelpForEveryCommand() {
        for (String[] args : new String[][] {{"--help"}, {"ports", "--help"}, {"pktgen", "--help"}, {"stat", "--help"}}) {
            CliRun run = CliRun.of(args);
            assertEquals(0, run.status());
            assertTrue(run.stdout().contains("Usage:"), run.stdout());
        }
    }

    @Test
    void shouldRejectBadArgumentsWithoutStartingAnything() {
        assertEquals(2, CliRun.of("pktgen", "--link", "carrier-pigeon").status());
        assertEquals(1, CliRun.of("pktgen", "--size", "20").status());
        assertEquals(1, CliRun.of("pktgen", "--count", "0").status());
        assertEquals(1, CliRun.of("stat", "--interval", "0").status());
        assertNotEquals(0, CliRun.of("nosuchcommand").status());
    }
}
