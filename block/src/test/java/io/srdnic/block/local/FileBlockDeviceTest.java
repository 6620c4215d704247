package io.srdnic.block.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.Errno;
import io.srdnic.block.Extents;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file device: bytes land in the file, FUA and FLUSH sync it, read-only files stay untouched. */
class FileBlockDeviceTest {
    @TempDir
    Path dir;

    private static void ok(int error) {
        assertEquals(0, error);
    }

    @Test
    void shouldWriteInPlace() throws IOException {
        Path file = Files.write(dir.resolve("disk"), new byte[3 << 20]);
        byte[] data = new byte[(1 << 20) + 17];
        new Random(3).nextBytes(data);
        try (FileBlockDevice d = new FileBlockDevice(file, false)) {
            assertEquals(3 << 20, d.size());
            assertTrue(d.multiConnSafe());
            d.write(1000, ByteBuffer.allocateDirect(data.length).put(data).flip(), false, FileBlockDeviceTest::ok);
            d.write(0, ByteBuffer.wrap(new byte[] {9}), false, FileBlockDeviceTest::ok);
            ByteBuffer back = ByteBuffer.allocateDirect(data.length);
            d.read(1000, back, FileBlockDeviceTest::ok);
            byte[] got = new byte[data.length];
            back.get(0, got);
            assertArrayEquals(data, got);
            d.writeZeroes(1000, 1 << 19, false, false, FileBlockDeviceTest::ok);
        }
        byte[] onDisk = Files.readAllBytes(file);
        assertEquals(9, onDisk[0]);
        assertArrayEquals(new byte[1 << 19], Arrays.copyOfRange(onDisk, 1000, 1000 + (1 << 19)));
        assertArrayEquals(Arrays.copyOfRange(data, 1 << 19, data.length), Arrays.copyOfRange(onDisk, 1000 + (1 << 19), 1000 + data.length));
    }

    @Test
    void shouldSyncOnlyForFuaAndFlush() throws IOException {
        Path file = Files.write(dir.resolve("disk"), new byte[1 << 20]);
        try (FileBlockDevice d = new FileBlockDevice(file, false)) {
            d.write(1000, ByteBuffer.allocateDirect(4096), false, FileBlockDeviceTest::ok);
            d.writeZeroes(8192, 4096, false, false, FileBlockDeviceTest::ok);
            assertEquals(0, d.syncs(), "a plain write or write-zeroes does not sync");
            d.write(0, ByteBuffer.wrap(new byte[] {9}), true, FileBlockDeviceTest::ok);
            assertEquals(1, d.syncs(), "FUA syncs before completing");
            d.flush(FileBlockDeviceTest::ok);
            assertEquals(2, d.syncs());
            d.writeZeroes(1000, 1 << 19, true, false, FileBlockDeviceTest::ok);
            assertEquals(3, d.syncs(), "FUA on write-zeroes syncs too");
        }
    }

    /** The extents block status reports, as {length, state} pairs. */
    private static List<List<Long>> extents(FileBlockDevice d, long offset, long length) {
        List<List<Long>> out = new ArrayList<>();
        assertEquals(0, d.blockStatus(offset, length, (n, state) -> out.add(List.of(n, (long) state))));
        return out;
    }

    @Test
    void shouldPunchHolesForTrimAndWriteZeroesAndReportThemAsZeroHoles() throws IOException {
        Path file = dir.resolve("sparse");
        try (var f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(4 << 20); // all hole
        }
        long hole = Extents.HOLE | Extents.ZERO;
        byte[] ones = new byte[1 << 20];
        Arrays.fill(ones, (byte) 1);
        try (FileBlockDevice d = new FileBlockDevice(file, false)) {
            assertTrue(d.reportsAllocation() && d.canFastZero());
            assertEquals(List.of(List.of(4L << 20, hole)), extents(d, 0, 4 << 20), "a new sparse file is one hole");
            d.write(1 << 20, ByteBuffer.wrap(ones), false, FileBlockDeviceTest::ok);
            assertEquals(List.of(List.of(1L << 20, hole), List.of(1L << 20, 0L), List.of(2L << 20, hole)),
                extents(d, 0, 4 << 20));
            d.trim(1 << 20, 256 << 10, false, FileBlockDeviceTest::ok);
            int[] fast = {-1};
            d.writeZeroesFast((1 << 20) + (512 << 10), 256 << 10, false, true, e -> fast[0] = e);
            assertEquals(0, fast[0], "ext4 and tmpfs punch holes: fast zero succeeds");
            assertEquals(List.of(List.of((1L << 20) + (256 << 10), hole), List.of(256L << 10, 0L),
                    List.of(256L << 10, hole), List.of(256L << 10, 0L), List.of(2L << 20, hole)),
                extents(d, 0, 4 << 20), "trim and write-zeroes punched holes");
            d.writeZeroes((1 << 20) + (256 << 10), 4096, false, false, FileBlockDeviceTest::ok); // NO_HOLE: zeroed in place
            assertEquals(List.of(List.of(100L, 0L)), extents(d, (1 << 20) + (300 << 10), 100), "never past the request");
        }
        byte[] onDisk = Files.readAllBytes(file);
        byte[] expected = new byte[4 << 20];
        Arrays.fill(expected, 1 << 20, 2 << 20, (byte) 1);
        Arrays.fill(expected, 1 << 20, (1 << 20) + (256 << 10) + 4096, (byte) 0);
        Arrays.fill(expected, (1 << 20) + (512 << 10), (1 << 20) + (768 << 10), (byte) 0);
        assertArrayEquals(expected, onDisk, "the holes read as zeroes, the rest is the data");
    }

    @Test
    void shouldBeReadOnlyWhenAskedOrWhenTheFileIsNotWritable() throws IOException {
        Path file = Files.write(dir.resolve("ro"), new byte[] {1, 2, 3});
        try (FileBlockDevice d = new FileBlockDevice(file, true)) {
            assertTrue(d.readOnly());
            assertEquals(3, d.size());
        }
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
        if (!Files.isWritable(file)) { // root may write anyway: then the file is writable, and not read-only
            try (FileBlockDevice d = new FileBlockDevice(file, false)) {
                assertTrue(d.readOnly());
            }
        }
    }

    @Test
    void shouldReportEioWhenTheFileShrankUnderneath() throws IOException {
        Path file = Files.write(dir.resolve("shrinks"), new byte[8192]);
        try (FileBlockDevice d = new FileBlockDevice(file, false)) {
            try (var ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(100);
            }
            int[] error = {-1};
            d.read(4096, ByteBuffer.allocate(4096), e -> error[0] = e);
            assertEquals(Errno.EIO, error[0]);
        }
    }
}
