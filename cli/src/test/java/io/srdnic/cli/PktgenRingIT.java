package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** pktgen over a net_ring pair in this JVM (EAL starts here, so this class has the JVM to itself). */
class PktgenRingIT {
    @Test
    void shouldMoveEveryFrameIntactOverARingPair() {
        CliRun run = CliRun.of("pktgen", "--link", "ring", "--count", "300000", "--size", "256", "--json");
        assertEquals(0, run.status());
        assertEquals(300000, run.number("sent"));
        assertEquals(300000, run.number("received"));
        assertEquals(0, run.number("corrupted"));
        assertEquals(0, run.number("duplicated"));
        assertTrue(Double.parseDouble(run.json().get("mpps")) > 0);
    }
}
