package io.srdnic.block.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.Extents;
import java.nio.ByteBuffer;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A write and a TRIM of the same range on two connections at once: NBD leaves the resulting data
 * undefined, but the allocation map must never call a page that holds data a zero hole — nbdcopy
 * and qemu-img skip what it calls a hole, and would lose that data.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryRaceTest {
    private static final int PAGE = MemoryBlockDevice.PAGE;
    private static final int RANGE = 8 << 20;
    private static final int ROUNDS = 300;

    @Test
    void shouldNeverReportAPageHoldingDataAsAHoleWhenAWriteOverlapsATrim() throws Exception {
        MemoryBlockDevice d = new MemoryBlockDevice(RANGE, false);
        ByteBuffer ones = ByteBuffer.allocateDirect(RANGE);
        while (ones.hasRemaining()) {
            ones.put((byte) 0x5A);
        }
        CyclicBarrier start = new CyclicBarrier(2);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread trimmer = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; i < ROUNDS; i++) {
                    start.await();
                    long spin = System.nanoTime() + (i % 20) * 50_000L; // trim at a different point of the write each round
                    while (System.nanoTime() < spin) {
                        Thread.onSpinWait();
                    }
                    d.trim(0, RANGE, false, e -> { });
                    start.await();
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        ByteBuffer page = ByteBuffer.allocateDirect(PAGE);
        int hole = Extents.HOLE | Extents.ZERO;
        int bad = 0;
        for (int i = 0; i < ROUNDS && failed.get() == null; i++) {
            start.await();
            d.write(0, ones.clear(), false, e -> { });
            start.await(); // both done: check every page against the map
            for (long p = 0; p < RANGE / PAGE; p++) {
                int[] state = {-1};
                d.blockStatus(p * PAGE, PAGE, (length, s) -> {
                    state[0] = s;
                    return false;
                });
                if (state[0] == hole) {
                    d.read(p * PAGE, page.clear(), e -> { });
                    boolean zero = true;
                    for (int b = 0; b < PAGE && zero; b += 8) {
                        zero = page.getLong(b) == 0;
                    }
                    if (!zero) {
                        bad++;
                    }
                }
            }
        }
        trimmer.join();
        d.close();
        assertEquals(null, failed.get());
        assertTrue(bad == 0, bad + " pages held data while the map called them zero holes");
    }
}
