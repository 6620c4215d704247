package io.srdnic.cli.adversary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** A direction of the stream is judged by the sender's completions against what the receiver verified. */
class StreamLedgerTest {

    @Test
    void shouldCountEachKindOfViolationOnce() {
        StreamLedger sender = new StreamLedger();
        StreamLedger receiver = new StreamLedger();
        for (int seq = 0; seq < 10; seq++) {
            sender.posted(seq);
        }
        // 0..5 delivered and SUCCESS; 6 SUCCESS but never delivered; 7 an honest error; 8 an error though delivered; 9 never completed.
        for (int seq = 0; seq <= 5; seq++) {
            sender.completed(seq, WcStatus.SUCCESS);
            receiver.received(seq);
        }
        sender.completed(6, WcStatus.SUCCESS);
        sender.completed(7, WcStatus.RNR_ERROR);
        sender.completed(8, WcStatus.REMOTE_UNRESPONSIVE);
        receiver.received(8);
        receiver.received(3); // a duplicate
        receiver.corrupted(StreamPayload.Defect.CHECKSUM);
        sender.completed(2, WcStatus.SUCCESS); // completed twice

        StreamLedger.Direction d = StreamLedger.judge(StreamLedger.parse(sender.line()), StreamLedger.parse(receiver.line()));
        assertEquals(10, d.sent());
        assertEquals(7, d.delivered());
        assertEquals(1, d.falseSuccess());
        assertEquals(1, d.uncompleted());
        assertEquals(2, d.lost(), "the false success and the one never completed; not the honest error");
        assertEquals(1, d.duplicated());
        assertEquals(1, d.corrupted());
        assertEquals(1, d.errorButDelivered());
        assertEquals(1, d.doubleCompletions());
        assertEquals(7, d.completionsByStatus()[WcStatus.SUCCESS]);
        assertEquals(1, d.completionsByStatus()[WcStatus.RNR_ERROR]);
        assertEquals(4, d.violations());
    }

    @Test
    void shouldSurviveTheSideChannelWithAMillionMessages() {
        StreamLedger sender = new StreamLedger();
        StreamLedger receiver = new StreamLedger();
        for (int seq = 0; seq < 1_000_000; seq++) {
            sender.posted(seq);
            sender.completed(seq, WcStatus.SUCCESS);
            if (seq != 123_456) {
                receiver.received(seq);
            }
        }
        String line = receiver.line();
        StreamLedger.Direction d = StreamLedger.judge(StreamLedger.parse(sender.line()), StreamLedger.parse(line));
        assertEquals(999_999, d.delivered());
        assertEquals(1, d.falseSuccess());
        assertEquals(true, line.length() < 20_000, "compressed: " + line.length() + " characters");
    }

    @Test
    void shouldTellAnIntactMessageFromAnyChangeToIt() {
        StreamPayload p = new StreamPayload();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = arena.allocate(256);
            long[] seq = new long[1];
            p.write(b, 64, 100, 77, 5_000_000_000L);
            assertNull(p.check(b, 64, 100, 100, 77, (int) 5_000_000_000L, seq));
            assertEquals(5_000_000_000L, seq[0]);
            assertEquals(StreamPayload.Defect.LENGTH, p.check(b, 64, 99, 100, 77, (int) 5_000_000_000L, seq));
            assertEquals(StreamPayload.Defect.STREAM, p.check(b, 64, 100, 100, 78, (int) 5_000_000_000L, seq));
            assertEquals(StreamPayload.Defect.IMMEDIATE, p.check(b, 64, 100, 100, 77, 1, seq));
            b.set(ValueLayout.JAVA_BYTE, 64 + 50, (byte) (b.get(ValueLayout.JAVA_BYTE, 64 + 50) ^ 1));
            assertEquals(StreamPayload.Defect.CHECKSUM, p.check(b, 64, 100, 100, 77, (int) 5_000_000_000L, seq));
        }
    }
}
