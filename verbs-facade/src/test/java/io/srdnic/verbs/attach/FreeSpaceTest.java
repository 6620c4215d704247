package io.srdnic.verbs.attach;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The attached context's pool and ring area are handed out and taken back: what was freed is reused, nothing overlaps. */
class FreeSpaceTest {

    @Test
    void shouldReuseWhatWasFreed() {
        FreeSpace space = new FreeSpace(4096);
        long a = space.allocate(1000);
        space.allocate(1000);
        space.allocate(1000);
        assertEquals(0, a);
        assertEquals(-1, space.allocate(2048), "1,024 bytes left");
        space.free(a, 1000);
        assertEquals(0, space.allocate(1000), "the freed block is handed out again");
    }

    @Test
    void shouldCoalesceFreedNeighbours() {
        FreeSpace space = new FreeSpace(4096);
        long a = space.allocate(1000);
        long b = space.allocate(1000);
        long c = space.allocate(1000);
        assertEquals(1024, b, "64-byte aligned");
        space.free(a, 1000);
        space.free(b, 1000);
        assertEquals(0, space.allocate(2048), "two freed neighbours are one block again");
        space.free(0, 2048);
        space.free(c, 1000);
        assertEquals(0, space.used());
        assertEquals(0, space.allocate(4096), "everything freed is the whole space again");
    }

    @Test
    void shouldRefuseToFreeWhatIsNotHandedOut() {
        FreeSpace space = new FreeSpace(4096);
        long a = space.allocate(100);
        space.free(a, 100);
        assertThrows(IllegalStateException.class, () -> space.free(a, 100), "a double free");
        assertThrows(IllegalStateException.class, () -> space.free(8192, 64), "outside the space");
        assertThrows(IllegalArgumentException.class, () -> space.allocate(0));
    }

    @Test
    void shouldNeverHandOutOverlappingSpansUnderChurn() {
        FreeSpace space = new FreeSpace(1 << 20);
        Random random = new Random(7);
        List<long[]> live = new ArrayList<>();
        for (int step = 0; step < 20_000; step++) {
            if (!live.isEmpty() && (random.nextBoolean() || live.size() > 200)) {
                long[] span = live.remove(random.nextInt(live.size()));
                space.free(span[0], span[1]);
            } else {
                long bytes = 1 + random.nextInt(16 * 1024);
                long at = space.allocate(bytes);
                if (at >= 0) {
                    assertEquals(0, at % 64);
                    assertTrue(at + bytes <= 1 << 20);
                    for (long[] other : live) {
                        assertFalse(at < other[0] + other[1] && other[0] < at + bytes, "overlaps a live span");
                    }
                    live.add(new long[] {at, bytes});
                }
            }
        }
        for (long[] span : live) {
            space.free(span[0], span[1]);
        }
        assertEquals(0, space.allocate(1 << 20), "all freed: one block again");
    }
}
