package io.srdnic.pmd.lcore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HandoffRingTest {

    @Test
    void shouldKeepOrderAcrossManyWrapsOfItsIndices() {
        HandoffRing ring = new HandoffRing(4);
        try (Arena arena = Arena.ofConfined()) {
            MbufBatch batch = new MbufBatch(arena, 3);
            long next = 1;
            long expected = 1;
            for (int round = 0; round < 100; round++) {
                for (int i = 0; i < 3; i++) {
                    assertTrue(ring.offer(next++));
                }
                batch.clear();
                assertEquals(3, ring.drainTo(batch));
                assertEquals(3, ring.lastFound());
                for (int i = 0; i < 3; i++) {
                    assertEquals(expected++, batch.address(i), "frame order after " + round + " rounds (the slots wrapped)");
                }
            }
            assertEquals(0, ring.size());
        }
    }

    @Test
    void shouldRefuseWhenFullUntilDrained() {
        HandoffRing ring = new HandoffRing(2);
        assertTrue(ring.offer(10));
        assertTrue(ring.offer(11));
        assertFalse(ring.offer(12), "full: refused, not overwritten and not blocked");
        assertEquals(2, ring.size());
        try (Arena arena = Arena.ofConfined()) {
            MbufBatch batch = new MbufBatch(arena, 1);
            assertEquals(1, ring.drainTo(batch), "only as many as the batch has room for");
            assertEquals(10, batch.address(0));
            assertEquals(0, ring.drainTo(batch), "a full batch takes none");
            assertTrue(ring.offer(12));
            batch.clear();
            assertEquals(1, ring.drainTo(batch));
            assertEquals(11, batch.address(0));
        }
    }

    @Test
    void shouldRefuseACapacityThatIsNotAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new HandoffRing(3));
        assertThrows(IllegalArgumentException.class, () -> new HandoffRing(1));
    }

    @Test
    void shouldPassEveryValueOnceInOrderBetweenTwoThreads() throws Exception {
        HandoffRing ring = new HandoffRing(64);
        long total = 500_000;
        AtomicReference<String> failure = new AtomicReference<>();
        Thread consumer = new Thread(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MbufBatch batch = new MbufBatch(arena, 32);
                long expected = 1;
                while (expected <= total) {
                    batch.clear();
                    int n = ring.drainTo(batch);
                    for (int i = 0; i < n; i++) {
                        if (batch.address(i) != expected) {
                            failure.compareAndSet(null, "expected " + expected + ", got " + batch.address(i));
                            return;
                        }
                        expected++;
                    }
                    if (n == 0) {
                        Thread.onSpinWait();
                    }
                }
            }
        });
        consumer.start();
        for (long v = 1; v <= total; ) {
            if (ring.offer(v)) {
                v++;
            } else {
                Thread.onSpinWait();
            }
        }
        consumer.join(60_000);
        assertFalse(consumer.isAlive(), "the consumer took every value");
        assertEquals(null, failure.get());
        assertEquals(0, ring.size());
    }
}
