package io.srdnic.srd.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The congestion window grows per packet acknowledged, whether each ACK answers one packet or many. */
class DelayWindowTest {
    private static DelayWindow window() {
        return new DelayWindow(4, 256, 1.0, 0.8, 0.5, 15_000);
    }

    @Test
    void shouldGrowAsMuchForOneAckOfSixteenPacketsAsForSixteenAcksOfOne() {
        DelayWindow each = window();
        DelayWindow coalesced = window();
        for (int i = 0; i < 16; i++) {
            each.onAck(10_000, 10_000, i, 1);
        }
        coalesced.onAck(10_000, 10_000, 0, 16);
        assertTrue(coalesced.window() > 6.5, "grew by about four packets, not one ACK's quarter: " + coalesced.window());
        assertEquals(each.window(), coalesced.window(), each.window() * 0.1);
    }

    @Test
    void shouldShrinkOnceForAnAckOverTargetHoweverManyPacketsItAnswers() {
        DelayWindow w = window();
        w.onAck(100_000, 10_000, 1_000_000, 16);
        double after = w.window();
        assertTrue(after < 4, "above target: shrunk, " + after);
        w.onAck(100_000, 10_000, 1_000_001, 16);
        assertEquals(after, w.window(), "at most once per RTT");
    }
}
