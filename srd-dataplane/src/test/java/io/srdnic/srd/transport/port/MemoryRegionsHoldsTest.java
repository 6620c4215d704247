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

    /** Tags are 8 random bits: a key deregistered comes back for another region one time in 255, and must not pass for the old buffer. */
    @Test
    void shouldNotHoldTheOldBufferWhenItsKeyIsDrawnAgainForOtherMemory() {
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegions regions = new MemoryRegions(16, new SplittableRandom(2));
            MemorySegment old = arena.allocate(256, 64);
            MemorySegment other = arena.allocate(256, 64);
            int key = regions.register(old, 1, MemoryRegions.LOCAL_WRITE);
            regions.deregister(key);
            int again = 0;
            for (int i = 0; i < 100_000 && again != key; i++) {
                again = regions.register(other, 1, MemoryRegions.LOCAL_WRITE);
                if (again != key) {
                    regions.deregister(again);
                }
            }
            assertTrue(regions.isLive(key), "the key was drawn again");
            assertFalse(regions.holds(key, old, 0, 64), "a receive posted from the old region took the new one's key");
            assertTrue(regions.holds(key, other, 0, 64));
        }
    }
}
