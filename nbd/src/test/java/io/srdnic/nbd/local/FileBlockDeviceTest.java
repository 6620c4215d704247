package io.srdnic.nbd.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.nbd.Errno;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
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
    void shouldWriteInPlaceAndSyncOnlyForFuaAndFlush() throws IOException {
        Path file = Files.write(dir.resolve("disk"), new byte[3 << 20]);
        byte[] data = new byte[(1 << 20) + 17];
        new Random(3).nextBytes(data);
        try (FileBlockDevice d = new FileBlockDevice(file, false)) {
            assertEquals(3 << 20, d.size());
            assertTrue(d.multiConnSafe());
            ByteBuffer direct = ByteBuffer.allocateDirect(data.length).put(data).flip();
            d.write(1000, direct, false, FileBlockDeviceTest::ok);
            assertEquals(0, d.syncs(), "a plain write does not sync");
            d.write(0, ByteBuffer.wrap(new byte[] {9}), true, FileBlockDeviceTest::ok);
            assertEquals(1, d.syncs(), "FUA syncs before completing");
            d.flush(FileBlockDeviceTest::ok);
            assertEquals(2, d.syncs());
            ByteBuffer back = ByteBuffer.allocateDirect(data.length);
            d.read(1000, back, FileBlockDeviceTest::ok);
            byte[] got = new byte[data.length];
            back.get(0, got);
            assertArrayEquals(data, got);
            d.writeZeroes(1000, 1 << 19, true, false, FileBlockDeviceTest::ok);
            assertEquals(3, d.syncs(), "FUA on write-zeroes syncs too");
            d.trim(0, 4096, false, FileBlockDeviceTest::ok);
        }
        byte[] onDisk = Files.readAllBytes(file);
        assertEquals(9, onDisk[0]);
        assertArrayEquals(new byte[1 << 19], Arrays.copyOfRange(onDisk, 1000, 1000 + (1 << 19)));
        assertArrayEquals(Arrays.copyOfRange(data, 1 << 19, data.length), Arrays.copyOfRange(onDisk, 1000 + (1 << 19), 1000 + data.length));
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
            try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate(100);
            }
            int[] error = {-1};
            d.read(4096, ByteBuffer.allocate(4096), e -> error[0] = e);
            assertEquals(Errno.EIO, error[0]);
        }
    }
}
