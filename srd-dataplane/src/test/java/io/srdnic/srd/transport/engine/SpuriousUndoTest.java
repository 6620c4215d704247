package io.srdnic.srd.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.counters.SrdCounters;
import org.junit.jupiter.api.Test;

/**
 * A retransmission timeout cuts the window; when every retransmission it caused proves spurious
 * (the original's ACK echoes the original's timestamp, or the responder reports the copy as a
 * duplicate) the cut is undone. A retransmission of a packet truly lost never proves spurious,
 * forged reports can give back at most what the flow had, and each episode shown spurious widens
 * RACK's reordering window.
 */
class SpuriousUndoTest {
    private static final long US = 1_000;
    private static final long[] NO_SACK = new long[1];
    private static final ReliableSender.Listener SILENT = new ReliableSender.Listener() {
        @Override
        public void emit(ReliableSender flow, int psn, int owner, int segment, int path, int xmit, long now) {
        }

        @Override
        public void acked(ReliableSender flow, int psn, int owner, int segment) {
        }

        @Override
        public void exhausted(ReliableSender flow, int psn, int owner, long now) {
            flow.forget(psn);
        }
    };

    private final SrdCounters counters = new SrdCounters();
    private final ReliableSender sender = SenderRecorder.newSender(counters, 1);

    /**
     * Warms the flow up: 40 packets, one at a time, each acknowledged 10 us after it left (RTO at
     * its 50 us floor, the window grown from 4); then 4 more leave at 1000 us. Returns the window then.
     */
    private double warmUpAndSendFour() {
        SenderRecorder.warmUp(sender, SILENT, 40);
        double window = sender.cwnd.window();
        for (int i = 0; i < 4; i++) {
            sender.send(100 + i, 0, 1000 * US, SILENT); // PSNs 140..143
        }
        return window;
    }

    @Test
    void shouldUndoTheWindowCutWhenTheOriginalsAckComesLateAndEchoesTheOriginal() {
        double before = warmUpAndSendFour();
        assertEquals(1, sender.detectLosses(1100 * US, SILENT), "the ACKs are late: the oldest times out and goes again (F-RTO)");
        assertTrue(sender.cwnd.window() < before, "the timeout cut the window: " + sender.cwnd.window());
        // The late ACK of the originals: it echoes PSN 140's first transmission (at 1000 us) and covers all four.
        sender.onAckTiming(140, 1000 * US, 1150 * US, Long.MAX_VALUE);
        sender.onAcknowledged(144, NO_SACK, SILENT);
        // The copy reaches the responder as a duplicate; it reports it, which proves nothing more.
        sender.onDuplicateReport(140);
        assertEquals(1, counters.spuriousRetransmits, "the retransmission proven spurious, once");
        assertEquals(1, counters.undos);
        assertTrue(sender.cwnd.window() >= before, "the window is back where it was: " + sender.cwnd.window() + " < " + before);
        assertEquals(0, sender.rtt.backoff(), "no backoff left");
    }

    @Test
    void shouldNotUndoWhenAPacketWasTrulyLost() {
        double before = warmUpAndSendFour();
        assertEquals(1, sender.detectLosses(1100 * US, SILENT));
        double cut = sender.cwnd.window();
        // PSN 140's original was lost: its ACK echoes the retransmission (sent at 1100 us) and
        // covers it alone, so 141..143, sent before that copy, go again (RACK).
        sender.onAckTiming(140, 1100 * US, 1150 * US, Long.MAX_VALUE);
        sender.onAcknowledged(141, NO_SACK, SILENT);
        assertEquals(3, sender.detectLosses(1150 * US, SILENT), "141..143 go again");
        // They were only late: their originals' ACK comes, and the responder reports the copies as duplicates.
        sender.onAckTiming(143, 1000 * US, 1200 * US, Long.MAX_VALUE);
        sender.onAcknowledged(144, NO_SACK, SILENT);
        for (int psn = 141; psn < 144; psn++) {
            sender.onDuplicateReport(psn);
        }
        assertEquals(3, counters.spuriousRetransmits);
        assertEquals(0, counters.undos, "one retransmission was needed: the episode stands");
        assertTrue(sender.cwnd.window() < before, "the cut stays: " + sender.cwnd.window() + " (before " + before + ")");
        assertTrue(sender.cwnd.window() <= cut + 1, "beyond what four ACKed packets grow it: " + sender.cwnd.window());
    }

    @Test
    void shouldNotLetForgedDuplicateReportsGiveBackMoreThanTheFlowHad() {
        double before = warmUpAndSendFour();
        sender.detectLosses(1100 * US, SILENT);
        // Reports for PSNs never retransmitted, and the same PSN over and over, prove at most once per retransmission.
        for (int i = 0; i < 100; i++) {
            sender.onDuplicateReport(100 + i % 40);
            sender.onDuplicateReport(141 + i % 3);
            sender.onDuplicateReport(140);
        }
        assertEquals(1, counters.spuriousRetransmits, "PSN 140 went twice once: one spurious copy, however often reported");
        assertEquals(1, counters.undos, "the episode's one retransmission is proven");
        assertEquals(before, sender.cwnd.window(), 1e-9, "the window goes back to what it was, not beyond");
    }

    @Test
    void shouldWidenTheReorderingWindowForEachEpisodeADuplicateReportShowedSpurious() {
        warmUpAndSendFour();
        long srtt = sender.rtt.srtt();
        long first = sender.reorderWindow();
        assertEquals(Math.max(srtt / 4, 5 * US), first, "a quarter RTT to start with");
        sender.detectLosses(1100 * US, SILENT);
        sender.onDuplicateReport(140);
        long widened = sender.reorderWindow();
        assertEquals(Math.max(Math.min(srtt / 4 * 2, srtt), 5 * US), widened, "half an RTT after one episode shown spurious");
        assertTrue(widened > first || srtt / 4 * 2 <= 5 * US, "wider: " + widened + " vs " + first);
    }

    @Test
    void shouldCountAnEpisodeGivenBackTwiceAsOneUndo() {
        // F-RTO gives an episode back without ending it; a second timeout in it cuts again, and its own F-RTO gives
        // that back too. Two give-backs, one episode: counted as one, so undos never exceed loss_episodes.
        SpuriousUndo undo = new SpuriousUndo(64);
        undo.begin(100, 10.0, 0);
        assertTrue(undo.onRetransmit(100, 1_000), "the episode's first retransmission");
        assertTrue(undo.firstUndo(), "the first give-back counts");
        assertFalse(undo.onRetransmit(104, 2_000), "the same episode");
        assertFalse(undo.firstUndo(), "the second give-back is not another episode undone");
        undo.begin(200, 10.0, 0);
        assertTrue(undo.onRetransmit(200, 3_000));
        assertTrue(undo.firstUndo(), "a new episode counts again");
    }
}
