package io.srdnic.srd.transport.port;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** What a posted receive's lkey is checked with when a message takes it: the region is live and still its buffer's. */
class MemoryRegionsHoldsTest {
    @Test
    void shouldHoldOnlyTheBytesOfALiveRegion() {
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegions regions = new MemoryRegions(16, new SplittableRandom(1));
            MemorySegment memory = arena.allocate(4096, 64);
            int key = regions.register(memory.asSlice(1024, 1024), 1, MemoryRegions.LOCAL_WRITE);
            assertTrue(regions.holds(key, memory, 1024, 1024));
            assertTrue(regions.holds(key, memory.asSlice(1024), 1000, 24), "the last bytes, through another view");
            assertFalse(regions.holds(key, memory, 1023, 2), "one byte before the region");
            assertFalse(regions.holds(key, memory, 2047, 2), "one byte past it");
            assertFalse(regions.holds(key ^ 1, memory, 1024, 64), "another tag");
            regions.deregister(key);
            assertFalse(regions.holds(key, memory, 1024, 64), "deregistered");
        }
    }

    /**
     * Issue 25, rule 7: a deregistered key is not drawn again for at least 2^24 registrations (it was
     * a random 8-bit tag on the same index: back one time in 255), so a receive or a peer's rkey of
     * the old region never reaches another.
     */
    @Test
    void shouldNeverDrawADeregisteredKeyAgainForTwoToTheTwentyFourRegistrations() {
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegions regions = new MemoryRegions(16, new SplittableRandom(2));
            MemorySegment old = arena.allocate(256, 64);
            MemorySegment other = arena.allocate(256, 64);
            int key = regions.register(old, 1, MemoryRegions.LOCAL_WRITE);
            int kept = regions.register(other, 1, MemoryRegions.LOCAL_WRITE); // a live key the cycling must step over
            regions.deregister(key);
            for (int i = 0; i < (1 << 24) + 16; i++) {
                int again = regions.register(other, 1, MemoryRegions.LOCAL_WRITE);
                if (again == key || again == kept) {
                    throw new AssertionError("registration " + i + " drew key " + Integer.toHexString(again) + " again");
                }
                regions.deregister(again);
            }
            assertFalse(regions.isLive(key));
            assertFalse(regions.holds(key, old, 0, 64), "a receive posted from the old region");
            assertTrue(regions.holds(kept, other, 0, 64), "the live region kept its key");
        }
    }
}
