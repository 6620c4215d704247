package io.srdnic.nbd.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
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
    void shouldMatchAByteArrayUnderRandomWritesTrimsAndZeroes() {
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
    void shouldAllocateOnlyWrittenPagesAndDropWholeOnesOnTrim() {
        MemoryBlockDevice d = new MemoryBlockDevice(1L << 40, false); // 1 TiB, nothing allocated
        assertEquals(0, d.allocatedPages());
        d.write((1L << 39) + PAGE - 2, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), false, MemoryBlockDeviceTest::ok);
        assertEquals(2, d.allocatedPages(), "a write across a page boundary makes both pages");
        assertArrayEquals(new byte[] {0, 1, 2, 3, 4, 0}, read(d, (1L << 39) + PAGE - 3, 6));
        d.trim(1L << 39, 2L * PAGE, false, MemoryBlockDeviceTest::ok);
        assertEquals(0, d.allocatedPages());
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
    void shouldRefuseSizesItCannotIndex() {
        assertThrows(IllegalArgumentException.class, () -> new MemoryBlockDevice(-1, false));
        assertThrows(IllegalArgumentException.class, () -> new MemoryBlockDevice(Long.MAX_VALUE, false));
    }
}
