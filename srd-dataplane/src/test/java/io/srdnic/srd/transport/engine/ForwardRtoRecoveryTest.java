package io.srdnic.srd.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.counters.SrdCounters;
import org.junit.jupiter.api.Test;

/**
 * F-RTO (RFC 5682) on one flow's sender: a retransmission timeout sends only the oldest packet
 * again. If the next ACK acknowledges packets that had timed out but never went again, the ACK
 * stream had only stalled: nothing else is sent again, and the window, the RTO backoff and the
 * paths the timeout took are given back. If it acknowledges only the copy, the rest were lost and
 * go again at once, as without F-RTO.
 */
class ForwardRtoRecoveryTest {
    private static final long US = 1_000;
    private static final long[] NO_SACK = new long[1];
    private static final int PATHS = 4;

    private final SrdCounters counters = new SrdCounters();
    private final SenderRecorder recorder = new SenderRecorder();
    private final ReliableSender sender = SenderRecorder.newSender(counters, PATHS);

    /**
     * 40 packets one at a time, each acknowledged 10 us after it left (the RTO at its 50 us
     * floor), then 8 more (PSNs 140..147) at 1000 us, 1 us apart. Returns the window before them.
     */
    private double warmUpAndSendEight() {
        SenderRecorder.warmUp(sender, recorder, 40);
        double window = sender.cwnd.window();
        for (int i = 0; i < 8; i++) {
            sender.send(100 + i, 0, 1000 * US + i * US, recorder);
        }
        recorder.emitted.clear();
        return window;
    }

    /** An ACK arriving at {@code now}, echoing {@code trigger}'s send time {@code echoed}, covering every PSN below {@code cumulative}. */
    private void ack(int trigger, long echoed, int cumulative, long now) {
        sender.onAckTiming(trigger, echoed, now, Long.MAX_VALUE);
        sender.onAcknowledged(cumulative, NO_SACK, recorder);
        sender.advanceSendBase();
        sender.detectLosses(now, recorder);
    }

    @Test
    void shouldSendOnlyTheOldestPacketAgainWhenTheRetransmissionTimerExpires() {
        warmUpAndSendEight();
        // 200 us on: every one of the eight is past the 50 us RTO, and past it doubled.
        sender.detectLosses(1200 * US, recorder);
        assertEquals(1, recorder.retransmissions(), "only the oldest of the eight goes again: " + recorder.emitted.size());
        assertEquals(140, recorder.emitted.getFirst()[0]);
    }

    @Test
    void shouldNotResendTheRestWhenTheAcksAfterTheTimeoutAcknowledgeOriginalsThatNeverWentAgain() {
        double before = warmUpAndSendEight();
        sender.detectLosses(1100 * US, recorder);
        assertTrue(sender.cwnd.window() < before, "the timeout cut the window");
        // The ACK stream resumes: the first ACK covers 140..143, the originals (it echoes 143's only transmission).
        ack(143, 1003 * US, 144, 1150 * US);
        assertEquals(1, counters.frtoSpuriousTimeouts, "143 had timed out and was never sent again: the timeout was spurious");
        assertTrue(sender.cwnd.window() >= before, "the window is given back: " + sender.cwnd.window() + " < " + before);
        assertEquals(0, sender.rtt.backoff(), "and the backoff");
        assertEquals(1, counters.undos);
        // 144..147 had timed out too; their timers run again from the decision, and their ACKs come within it.
        sender.detectLosses(1160 * US, recorder);
        ack(147, 1007 * US, 148, 1170 * US);
        sender.detectLosses(1300 * US, recorder);
        assertEquals(1, recorder.retransmissions(), "nothing but the oldest went again");
        assertEquals(0, sender.inflight);
    }

    @Test
    void shouldWaitForTheCopysAckBeforeCallingTheTimeoutSpurious() {
        warmUpAndSendEight();
        sender.detectLosses(1100 * US, recorder);
        // 141..143 arrive (selectively acknowledged), 140 and its copy not yet: nothing is decided.
        sender.onAckTiming(143, 1003 * US, 1120 * US, Long.MAX_VALUE);
        sender.onAcknowledged(140, new long[] {0b111}, recorder);
        sender.detectLosses(1120 * US, recorder);
        assertEquals(0, counters.frtoSpuriousTimeouts, "the packet sent again is not acknowledged yet");
        // Now 140 is acknowledged: the originals of 141..143 had arrived without copies, so the timeout was spurious.
        ack(140, 1100 * US, 148, 1130 * US);
        assertEquals(1, counters.frtoSpuriousTimeouts);
        assertEquals(1, recorder.retransmissions(), "nothing else went again");
    }

    @Test
    void shouldResendTheRestAtOnceWhenOnlyTheCopyIsAcknowledged() {
        double before = warmUpAndSendEight();
        sender.detectLosses(1100 * US, recorder);
        // All eight were lost: the only ACK is the copy's (it echoes the copy's send time).
        ack(140, 1100 * US, 141, 1120 * US);
        assertEquals(0, counters.frtoSpuriousTimeouts);
        assertEquals(8, recorder.retransmissions(), "141..147 go again on that ACK, not a timeout later: " + recorder.retransmissions());
        ack(147, 1120 * US, 148, 1140 * US);
        assertEquals(0, sender.inflight, "every packet delivered");
        assertEquals(0, counters.undos, "the timeout was real: the cut stands");
        assertTrue(sender.cwnd.window() < before, "the cut stands: " + sender.cwnd.window());
    }

    @Test
    void shouldKeepSendingOnlyTheOldestWhileNoAckComes() {
        warmUpAndSendEight();
        long[] expiries = new long[3];
        long t = 1100 * US;
        for (int k = 0; k < expiries.length; k++) {
            expiries[k] = t;
            sender.detectLosses(t, recorder);
            t += sender.rtt.rto();
        }
        assertEquals(3, recorder.retransmissions(), "one copy per expiry, each of the oldest: " + recorder.retransmissions());
        assertTrue(recorder.emitted.stream().allMatch(e -> e[0] == 140));
        // The ACK stream resumes with the third copy's ACK alone: the other seven were lost, and go at once.
        ack(140, expiries[2], 141, expiries[2] + 10 * US);
        assertEquals(0, counters.frtoSpuriousTimeouts);
        assertEquals(10, recorder.retransmissions(), "the seven kept back go on that ACK: " + recorder.retransmissions());
    }

    @Test
    void shouldGiveBackThePathATimeoutAvoidedWhenItsEpisodeIsUndone() {
        warmUpAndSendEight();
        sender.detectLosses(1100 * US, recorder);
        assertEquals(PATHS - 1, sender.paths.healthyCount(), "the path that timed out is avoided");
        // The late ACK of the original: it echoes 140's first transmission, so its copy was not needed.
        ack(140, 1000 * US, 148, 1150 * US);
        assertEquals(1, counters.undos);
        assertEquals(PATHS, sender.paths.healthyCount(), "the undo gives the path back without waiting for its probe");
    }
}
