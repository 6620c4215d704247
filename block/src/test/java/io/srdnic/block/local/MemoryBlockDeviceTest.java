package io.srdnic.block.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.Extents;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The memory device against a plain byte array: sparse pages, partial pages, the last short page. */
class MemoryBlockDeviceTest {
    static final int PAGE = MemoryBlockDevice.PAGE;

    private static void ok(int error) {
        assertEquals(0, error);
    }

    private static byte[] read(MemoryBlockDevice d, long offset, int length) {
        ByteBuffer b = ByteBuffer.allocateDirect(length);
        d.read(offset, b, MemoryBlockDeviceTest::ok);
        byte[] out = new byte[length];
        b.get(0, out);
        return out;
    }

    @Test
    void shouldMatchAByteArrayUnderARandomMixOfOperations() {
        int size = 5 * PAGE + 1234;
        MemoryBlockDevice d = new MemoryBlockDevice(size, false);
        byte[] model = new byte[size];
        Random r = new Random(7);
        for (int i = 0; i < 2000; i++) {
            int offset = r.nextInt(size);
            int length = 1 + r.nextInt(Math.min(size - offset, 3 * PAGE));
            switch (r.nextInt(4)) {
                case 0, 1 -> {
                    byte[] data = new byte[length];
                    r.nextBytes(data);
                    d.write(offset, ByteBuffer.wrap(data), false, MemoryBlockDeviceTest::ok);
                    System.arraycopy(data, 0, model, offset, length);
                }
                case 2 -> {
                    d.trim(offset, length, false, MemoryBlockDeviceTest::ok);
                    Arrays.fill(model, offset, offset + length, (byte) 0);
                }
                default -> {
                    d.writeZeroes(offset, length, false, r.nextBoolean(), MemoryBlockDeviceTest::ok);
                    Arrays.fill(model, offset, offset + length, (byte) 0);
                }
            }
            int at = r.nextInt(size);
            int n = 1 + r.nextInt(size - at);
            assertArrayEquals(Arrays.copyOfRange(model, at, at + n), read(d, at, n));
        }
    }

    @Test
    void shouldAllocateOnlyThePagesAWriteTouches() {
        MemoryBlockDevice d = new MemoryBlockDevice(1L << 30, false); // 1 GiB, nothing allocated
        assertEquals(0, d.allocatedPages());
        d.write((1L << 29) + PAGE - 2, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), false, MemoryBlockDeviceTest::ok);
        assertEquals(2, d.allocatedPages(), "a write across a page boundary makes both pages");
        assertArrayEquals(new byte[] {0, 1, 2, 3, 4, 0}, read(d, (1L << 29) + PAGE - 3, 6));
        d.close();
    }

    @Test
    void shouldDropWholePagesOnTrim() {
        MemoryBlockDevice d = new MemoryBlockDevice(1L << 30, false);
        d.write((1L << 29) + PAGE - 2, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), false, MemoryBlockDeviceTest::ok);
        d.trim(1L << 29, PAGE, false, MemoryBlockDeviceTest::ok);
        assertEquals(1, d.allocatedPages(), "the first page went, the second is still written");
        d.trim((1L << 29) + PAGE, 2L * PAGE, false, MemoryBlockDeviceTest::ok);
        assertEquals(0, d.allocatedPages());
        assertArrayEquals(new byte[6], read(d, (1L << 29) + PAGE - 3, 6), "a trimmed page reads as zeroes");
        d.close();
    }

    @Test
    void shouldDropTheShortLastPageWhenTrimmedToTheEnd() {
        MemoryBlockDevice d = new MemoryBlockDevice(PAGE + 100, false);
        d.write(PAGE, ByteBuffer.wrap(new byte[100]), false, MemoryBlockDeviceTest::ok);
        assertEquals(1, d.allocatedPages());
        d.trim(PAGE, 100, false, MemoryBlockDeviceTest::ok);
        assertEquals(0, d.allocatedPages());
    }

    @Test
    void shouldKeepItsDataOffTheJavaHeap() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        long heapBefore = rt.totalMemory() - rt.freeMemory();
        MemoryBlockDevice d = new MemoryBlockDevice(512L << 20, false);
        ByteBuffer block = ByteBuffer.allocateDirect(1 << 20);
        for (int i = 0; i < block.capacity(); i++) {
            block.put(i, (byte) (i * 31 + 7));
        }
        for (long at = 0; at < d.size(); at += block.capacity()) {
            d.write(at, block.clear(), false, MemoryBlockDeviceTest::ok);
        }
        System.gc();
        long grown = rt.totalMemory() - rt.freeMemory() - heapBefore;
        assertEquals(512L << 20 >> 12, d.allocatedPages());
        assertTrue(grown < 32L << 20, "512 MiB written, the heap grew by " + grown + " bytes");
        assertEquals((byte) (5 * 31 + 7), read(d, (300L << 20) + 5, 1)[0]);
        d.close();
    }

    @Test
    void shouldReportWrittenPagesAsDataAndTheRestAsZeroHoles() {
        MemoryBlockDevice d = new MemoryBlockDevice(64L << 20, false);
        d.write(PAGE + 10, ByteBuffer.wrap(new byte[] {1}), false, MemoryBlockDeviceTest::ok);
        d.write(10L * PAGE, ByteBuffer.wrap(new byte[3 * PAGE]), false, MemoryBlockDeviceTest::ok);
        d.writeZeroes(11L * PAGE, PAGE, false, true, MemoryBlockDeviceTest::ok); // punched again
        d.writeZeroes(40L * PAGE, 2 * PAGE, false, false, MemoryBlockDeviceTest::ok); // NO_HOLE: allocated
        List<long[]> extents = new ArrayList<>();
        d.blockStatus(0, d.size(), (length, state) -> extents.add(new long[] {length, state}));
        int hole = Extents.HOLE | Extents.ZERO;
        long[][] expected = {
            {PAGE, hole}, {PAGE, 0}, {8L * PAGE, hole}, {PAGE, 0}, {PAGE, hole}, {PAGE, 0}, {27L * PAGE, hole}, {2L * PAGE, 0},
            {(64L << 20) - 42L * PAGE, hole}};
        assertEquals(expected.length, extents.size(), () -> extents.stream().map(Arrays::toString).toList().toString());
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], extents.get(i), "extent " + i);
        }
        List<long[]> one = new ArrayList<>();
        d.blockStatus(PAGE + 100, 3 * PAGE, (length, state) -> one.add(new long[] {length, state}) && false);
        assertEquals(1, one.size(), "the device stops when asked");
        assertArrayEquals(new long[] {PAGE - 100, 0}, one.get(0), "an extent starts at the offset asked about");
        d.close();
    }

    @Test
    void shouldRefuseASizeTheMachineCannotHoldNamingBothSizes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new MemoryBlockDevice(1L << 50, false));
        assertTrue(e.getMessage().contains("1048576.0 GiB (1125899906842624 bytes) does not fit in memory"), e.getMessage());
        assertTrue(e.getMessage().contains("available"), e.getMessage());
    }

    @Test
    void shouldGiveItsSizeBackToTheBudgetOnClose() {
        long big = MemoryBudget.available() / 3 * 2 / PAGE * PAGE; // two at once would not fit
        MemoryBlockDevice d = new MemoryBlockDevice(big, false);
        d.write(0, ByteBuffer.wrap(new byte[] {1}), false, MemoryBlockDeviceTest::ok);
        assertThrows(IllegalArgumentException.class, () -> new MemoryBlockDevice(big, false));
        d.close();
        new MemoryBlockDevice(big, false).close();
    }

    @Test
    void shouldFailAccessCleanlyOnceClosed() {
        MemoryBlockDevice d = new MemoryBlockDevice(1L << 20, false);
        d.write(0, ByteBuffer.wrap(new byte[] {1}), false, MemoryBlockDeviceTest::ok);
        d.close();
        assertThrows(IllegalStateException.class, () -> read(d, 0, 1), "closed: the memory is gone, access fails cleanly");
    }

    /** This process's resident set (VmRSS), in bytes. */
    private static long rss() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new AssertionError("no VmRSS");
    }

    /** A device of 128 MiB, every page written: RSS grew by most of it. */
    private static MemoryBlockDevice filled() throws IOException {
        long size = 128L << 20;
        MemoryBlockDevice d = new MemoryBlockDevice(size, false);
        ByteBuffer block = ByteBuffer.allocateDirect(1 << 20);
        long before = rss();
        for (long at = 0; at < size; at += block.capacity()) {
            d.write(at, block.clear(), false, MemoryBlockDeviceTest::ok);
        }
        assertTrue(rss() - before > 112L << 20, "128 MiB written: RSS grew by " + (rss() - before));
        return d;
    }

    @Test
    void shouldGiveTrimmedPagesBackToTheKernel() throws IOException {
        MemoryBlockDevice d = filled();
        long filled = rss();
        d.trim(0, 64L << 20, false, MemoryBlockDeviceTest::ok);
        long trimmed = rss();
        assertTrue(filled - trimmed > 56L << 20, "64 MiB trimmed: RSS fell by " + (filled - trimmed));
        d.close();
    }

    @Test
    void shouldGiveTheWholeDeviceBackToTheKernelOnClose() throws IOException {
        MemoryBlockDevice d = filled();
        long filled = rss();
        d.close();
        assertTrue(filled - rss() > 112L << 20, "closed: the 128 MiB went back at once, RSS fell by " + (filled - rss()));
    }

    @Test
    void shouldRefuseSizesItCannotIndex() {
        assertThrows(IllegalArgumentException.class, () -> new MemoryBlockDevice(-1, false));
        assertThrows(IllegalArgumentException.class, () -> new MemoryBlockDevice(Long.MAX_VALUE, false));
    }

    /** Close while another thread writes: close returns, and the write fails cleanly (no fault, no busy close). */
    @Test
    void shouldCloseWhileAnotherThreadIsWritingAndFailThatWriteCleanly() throws Exception {
        MemoryBlockDevice d = new MemoryBlockDevice(64L << 20, false);
        ByteBuffer src = ByteBuffer.allocateDirect(64 << 20);
        Throwable[] failure = {null};
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                while (true) {
                    d.write(0, src.clear(), false, MemoryBlockDeviceTest::ok);
                }
            } catch (Throwable t) {
                failure[0] = t;
            }
        });
        Thread.sleep(50);
        d.close();
        writer.join(10_000);
        assertTrue(failure[0] instanceof IllegalStateException, () -> "the write after or during close: " + failure[0]);
    }
}
