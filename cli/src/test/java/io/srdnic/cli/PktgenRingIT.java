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

    @Test
    void shouldCountEveryFrameOfATimedBlast() {
        CliRun run = CliRun.of("pktgen", "--mode", "blast", "--link", "ring", "--size", "4186", "--seconds", "2", "--json");
        assertEquals(0, run.status(), run.stdout());
        assertEquals("blast", run.json().get("mode"));
        long sent = run.number("sent");
        assertTrue(sent > 0);
        // What the ring accepted is delivered: nothing between the two ends loses frames.
        assertEquals(sent, run.number("received"));
        assertEquals(0, run.number("foreign"));
        long window = run.number("window_frames");
        assertTrue(window > 0 && window < sent, "the warm-up is left out of the window: " + window + " of " + sent);
        assertEquals(window * 4186, run.number("window_bytes"), "every frame counted at its full length");
        // 2 s with the first 0.4 s unmeasured: the window is ~1.6 s, not the whole run and not a burst.
        long nanos = run.number("window_ns");
        assertTrue(nanos > 1_000_000_000L && nanos < 2_000_000_000L, "window " + nanos + " ns");
        double mpps = Double.parseDouble(run.json().get("mpps"));
        double gbps = Double.parseDouble(run.json().get("gbps"));
        assertEquals(window * 1e3 / nanos, mpps, 1e-3);
        assertEquals(mpps * 4186 * 8 / 1000, gbps, gbps * 1e-4);
    }
}
