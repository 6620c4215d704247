package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's main job, as a newcomer runs it (smaller counts): it passes, its loss run repaired
 * every loss, its RC transfer arrived whole and in order, and its RDMA WRITEs and READs over SRD and
 * RC were verified byte for byte.
 */
class DemoIT {
    /** A timed line's "in 12.3 ms, 4.56 Gbit/s of payload". */
    private static final String TIMED = "in \\d+\\.\\d ms, \\d+\\.\\d\\d Gbit/s of payload \\(\\d+ data packets, \\d+ retransmitted\\)";

    @Test
    void shouldPassEveryCheckOfTheReadmeDemo() {
        CliRun run = CliRun.of("demo", "--ping-pongs", "2000", "--messages", "20000", "--lossy-messages", "5000");
        assertEquals(0, run.status(), run.stdout());
        assertTrue(run.stdout().contains("ping-pong: 2000 round trips of 64-byte messages"), run.stdout());
        assertTrue(run.stdout().contains("bandwidth: 20000 messages of 4096 bytes"), run.stdout());
        Matcher loss = Pattern.compile("\\((\\d+) data and ACK frames dropped\\)").matcher(run.stdout());
        assertTrue(loss.find() && Long.parseLong(loss.group(1)) > 0, "the lossy run dropped frames: " + run.stdout());
        assertTrue(run.stdout().contains("5000 delivered, 0 lost, 0 duplicated, 5000 completed with success"), run.stdout());
        Matcher repaired = Pattern.compile("(\\d+) retransmissions repaired the losses").matcher(run.stdout());
        assertTrue(repaired.find() && Long.parseLong(repaired.group(1)) > 0, run.stdout());

        Matcher rc = Pattern.compile("(?m)^rc: 16 messages of 1 MiB on the RC QP pair " + TIMED + "; checked whole and in order,"
            + " completions in post order, CRC32C [0-9a-f]{8} sent and received: verified: yes$").matcher(run.stdout());
        assertTrue(rc.find(), "the RC transfer's line: " + run.stdout());
        for (String transport : new String[] {"SRD", "RC"}) {
            assertTrue(Pattern.compile("(?m)^rdma write over " + transport + ": 16 MiB from 10\\.0\\.0\\.1 into 10\\.0\\.0\\.2's registered"
                + " memory \\(rkey 0x[0-9a-f]+\\) " + TIMED + "; every byte compared: verified: yes$").matcher(run.stdout()).find(),
                "the " + transport + " write's line: " + run.stdout());
            assertTrue(Pattern.compile("(?m)^rdma read over " + transport + ": 16 MiB of 10\\.0\\.0\\.2's registered memory, rewritten"
                + " since, back into 10\\.0\\.0\\.1 " + TIMED + "; every byte compared: verified: yes$").matcher(run.stdout()).find(),
                "the " + transport + " read's line: " + run.stdout());
        }
        assertFalse(run.stdout().contains("verified: NO") || run.stdout().contains("FAILED"), run.stdout());
        assertTrue(run.stdout().contains("demo: every message arrived exactly once, RC in order, every RDMA byte verified"), run.stdout());
    }
}
