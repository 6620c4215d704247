package io.srdnic.rtrs.link;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The heartbeat's counting, as rtrs_hb_work: a message per interval, misses counted, any receive or an ACK resets them. */
class HeartbeatTest {
    static final long I = 100;

    @Test
    void shouldDeclareThePathDeadOnlyAfterMoreThanTheAllowedMisses() {
        Heartbeat hb = new Heartbeat(I, 3);
        hb.start(0);
        assertEquals(Heartbeat.NOTHING, hb.poll(I - 1));
        assertEquals(Heartbeat.SEND, hb.poll(I));
        assertEquals(Heartbeat.NOTHING, hb.poll(I + 1), "one per interval");
        assertEquals(Heartbeat.SEND, hb.poll(2 * I));
        assertEquals(Heartbeat.SEND, hb.poll(3 * I));
        assertEquals(3, hb.missed());
        assertEquals(Heartbeat.DEAD, hb.poll(4 * I), "3 allowed, all 3 missed: dead at the next tick");
        assertEquals(Heartbeat.NOTHING, hb.poll(10 * I), "once");
    }

    @Test
    void shouldResetTheMissesOnAnyReceiveOrAnAck() {
        Heartbeat hb = new Heartbeat(I, 2);
        hb.start(0);
        assertEquals(Heartbeat.SEND, hb.poll(I));
        assertEquals(Heartbeat.SEND, hb.poll(2 * I));
        hb.alive(); // an IO response, say
        assertEquals(0, hb.missed());
        assertEquals(Heartbeat.SEND, hb.poll(3 * I));
        assertEquals(Heartbeat.SEND, hb.poll(4 * I));
        hb.acked(4 * I + 7);
        assertEquals(0, hb.missed());
        assertEquals(Heartbeat.SEND, hb.poll(5 * I), "alive: no DEAD");
    }

    @Test
    void shouldMeasureTheRoundTripFromTheLastHeartbeatToItsAck() {
        Heartbeat hb = new Heartbeat(I, 2);
        hb.start(0);
        assertEquals(Heartbeat.SEND, hb.poll(I));
        assertEquals(Heartbeat.SEND, hb.poll(2 * I));
        hb.acked(2 * I + 7);
        assertEquals(7, hb.latencyNanos(), "from the last HB_MSG to its ACK");
    }
}
