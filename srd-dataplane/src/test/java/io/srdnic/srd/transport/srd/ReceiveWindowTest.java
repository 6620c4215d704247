package io.srdnic.srd.transport.srd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The receive window's dedup and its word-wide selective-ack bitmap against the bit-by-bit definition. */
class ReceiveWindowTest {
    @Test
    void shouldBuildTheSackBitmapWordWideExactlyAsBitByBit() {
        SplittableRandom random = new SplittableRandom(9);
        for (int trial = 0; trial < 200; trial++) {
            int size = 64 << random.nextInt(5);
            ReceiveWindow w = new ReceiveWindow(size);
            int base = random.nextInt(); // any PSN, wrap-around included
            w.reset(base);
            for (int i = 0; i < size * 2; i++) {
                int psn = base + random.nextInt(size + 64) - 32;
                if (w.classify(psn) == ReceiveWindow.NEW) {
                    if (random.nextInt(20) == 0 && w.canRecordDrop()) {
                        w.recordDrop(psn, 2);
                    }
                    w.mark(psn);
                }
                if (random.nextInt(50) == 0) {
                    w.slideTo(w.base() + random.nextInt(8));
                }
            }
            int cumulative = w.cumulative();
            for (int word = 0; word < 4; word++) {
                assertEquals(w.sackWordSlowly(cumulative, word), w.sackWord(cumulative, word), "trial " + trial + " word " + word);
            }
        }
    }

    @Test
    void shouldDeliverEachPsnOnce() {
        ReceiveWindow w = new ReceiveWindow(64);
        w.reset(-10); // across the 32-bit wrap
        for (int psn = -10; psn < 40; psn += 2) {
            assertEquals(ReceiveWindow.NEW, w.classify(psn));
            w.mark(psn);
            assertNotEquals(ReceiveWindow.NEW, w.classify(psn), "a marked PSN is never new again");
        }
    }

    @Test
    void shouldForgetNothingInsideTheWindow() {
        ReceiveWindow w = new ReceiveWindow(64);
        w.reset(-10); // across the 32-bit wrap
        for (int psn = -10; psn < 40; psn += 2) {
            w.mark(psn);
        }
        assertEquals(-9, w.base(), "the base waits for the first gap");
        for (int psn = -9; psn < 40; psn += 2) {
            assertEquals(ReceiveWindow.NEW, w.classify(psn), "a gap inside the window stays deliverable: " + psn);
        }
        for (int psn = -8; psn < 40; psn += 2) {
            assertEquals(ReceiveWindow.DUPLICATE, w.classify(psn), "a PSN marked above the base is still known: " + psn);
        }
        assertEquals(ReceiveWindow.OLD, w.classify(-11));
        assertEquals(ReceiveWindow.BEYOND, w.classify(-9 + 64));
    }
}
