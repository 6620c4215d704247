package io.srdnic.srd.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.counters.SrdCounters;
import org.junit.jupiter.api.Test;

/**
 * Loss detection between ACKs: a timer pass that finds nothing lost remembers when the oldest
 * packet in flight times out and skips the next passes until then. Whatever makes a loss due
 * sooner must end that: each test here fails if the shortcut outlives it.
 */
class ReliableSenderLossCheckTest {
    private static final long US = 1_000;
    private static final long MS = 1_000_000;
    private static final long[] NO_SACK = new long[1];

    private final SenderRecorder recorder = new SenderRecorder();
    /** Initial RTO 1 ms, floor 50 us, as configured by default. */
    private final ReliableSender sender = newSender();

    private static ReliableSender newSender() {
        ReliableSender s = new ReliableSender(0, new TransportConfig(), new SrdCounters(), 1);
        s.ensureWindow();
        s.reset(100, 0);
        return s;
    }

    @Test
    void shouldRetransmitByRackAsSoonAsALaterPacketIsAcknowledged() {
        sender.send(7, 0, 0, recorder); // PSN 100 at t = 0
        sender.send(8, 0, 20 * US, recorder); // PSN 101 at t = 20 us
        assertEquals(0, sender.detectLosses(30 * US, recorder), "nothing lost yet: the RTO is 1 ms");
        // PSN 101 is acknowledged alone (selectively): 100, sent 20 us before it, is lost by RACK.
        sender.onAckTiming(101, 20 * US, 40 * US, Long.MAX_VALUE);
        sender.onAcknowledged(100, new long[] {1L}, recorder);
        assertEquals(1, sender.detectLosses(41 * US, recorder), "RACK judges PSN 100 lost at the next pass, not at its RTO");
        assertEquals(1, recorder.retransmissionsOf(100));
    }

    @Test
    void shouldTimeOutByTheRtoAnRttSampleShortenedSinceTheLastPass() {
        sender.send(7, 0, 0, recorder); // PSN 100
        assertEquals(0, sender.detectLosses(10 * US, recorder), "within the initial 1 ms RTO");
        // An ACK that acknowledges nothing new (a duplicate) but brings a 5 us RTT sample: the RTO
        // falls to its 50 us floor, and PSN 100, 60 us old at the next pass, has timed out.
        sender.onAckTiming(99, 15 * US, 20 * US, Long.MAX_VALUE);
        sender.onAcknowledged(100, NO_SACK, recorder);
        assertEquals(1, sender.detectLosses(60 * US, recorder), "the new RTO applies at once");
        assertEquals(1, recorder.retransmissionsOf(100));
    }

    @Test
    void shouldTimeOutANewPacketAfterTheWindowEmptied() {
        sender.send(7, 0, 0, recorder); // PSN 100
        assertEquals(0, sender.detectLosses(10 * US, recorder));
        sender.onAckTiming(100, 0, 30 * US, Long.MAX_VALUE);
        sender.onAcknowledged(101, NO_SACK, recorder);
        sender.advanceSendBase();
        assertEquals(0, sender.detectLosses(31 * US, recorder), "nothing in flight");
        sender.send(9, 0, 40 * US, recorder); // PSN 101; the 30 us sample made the RTO 30 + 4 x 15 = 90 us
        assertEquals(0, sender.detectLosses(129 * US, recorder));
        assertEquals(1, sender.detectLosses(130 * US, recorder),
                "PSN 101 times out at its RTO, the window having emptied before it was sent");
        assertEquals(1, recorder.retransmissionsOf(101));
    }

    @Test
    void shouldAdvanceTheSendBaseAtTheNextPassAfterADropIndication() {
        sender.send(7, 0, 0, recorder); // PSN 100
        sender.send(8, 0, 1 * US, recorder); // PSN 101
        assertEquals(0, sender.detectLosses(10 * US, recorder));
        sender.forget(100); // the responder dropped it: it leaves the window without an ACK
        sender.detectLosses(11 * US, recorder);
        assertEquals(101, sender.sendBase, "the window moves past the dropped PSN at the next timer pass, not at PSN 101's RTO");
    }

    @Test
    void shouldTimeOutAtTheInitialRtoAfterAResetThatFollowedABackOff() {
        sender.send(7, 0, 0, recorder); // PSN 100
        assertEquals(1, sender.detectLosses(MS, recorder), "times out; the RTO backs off to 2 ms, the next check at 3 ms");
        assertEquals(0, sender.detectLosses(MS + 1, recorder));
        sender.reset(500, MS + 100 * US); // a new incarnation of the flow: the initial 1 ms RTO again
        sender.send(8, 0, MS + 100 * US, recorder); // PSN 500
        assertEquals(1, sender.detectLosses(2 * MS + 100 * US, recorder), "at the new packet's RTO, not at the old deadline");
        assertEquals(1, recorder.retransmissionsOf(500));
    }

    /** Only on a clock that went back, which no driver passes; the engine must still not hide a timeout there. */
    @Test
    void shouldNotHideATimeoutBehindAHeldPacket() {
        sender.send(7, 0, 5 * MS, recorder); // PSN 100 at 5 ms
        assertEquals(0, sender.detectLosses(5 * MS, recorder), "remembers 6 ms");
        sender.hold(100); // RNR: held back, neither lost nor timed out
        sender.send(8, 0, MS, recorder); // PSN 101, on a clock 4 ms behind
        assertEquals(1, sender.detectLosses(2 * MS, recorder), "PSN 101's RTO, not the held packet's");
        assertEquals(1, recorder.retransmissionsOf(101));
    }

    @Test
    void shouldStillTimeOutThePacketItRemembered() {
        sender.send(7, 0, 0, recorder); // PSN 100
        for (long t = 10 * US; t < MS; t += 10 * US) {
            assertEquals(0, sender.detectLosses(t, recorder));
        }
        assertEquals(1, sender.detectLosses(MS, recorder), "at exactly its RTO");
        assertEquals(1, recorder.retransmissionsOf(100));
    }
}
