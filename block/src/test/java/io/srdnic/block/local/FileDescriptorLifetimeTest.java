package io.srdnic.block.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.Extents;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file device's second descriptor (fallocate, lseek) must stay open while an operation uses
 * it: closed under a straggling TRIM or block status, its number can be given to an unrelated file
 * the process opens next, and the operation would then punch holes in, or describe, that file.
 */
class FileDescriptorLifetimeTest {
    private static final int HALF = 512 << 10;

    @TempDir
    Path dir;

    /** The descriptor numbers of this process that name {@code file} now. */
    private static List<Integer> descriptorsOf(Path file) throws IOException {
        Path real = file.toRealPath();
        List<Integer> fds = new ArrayList<>();
        try (Stream<Path> links = Files.list(Path.of("/proc/self/fd"))) {
            for (Path link : links.toList()) {
                try {
                    if (Files.readSymbolicLink(link).equals(real)) {
                        fds.add(Integer.parseInt(link.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // closed while listed
                }
            }
        }
        return fds;
    }

    @Test
    void shouldKeepTheDescriptorOfAnOperationInFlightOpenUntilItEndsAfterClose() throws IOException {
        Path disk = dir.resolve("disk");
        try (FileChannel c = FileChannel.open(disk, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(new byte[HALF]).put(0, (byte) 1), HALF); // a hole, then data
        }
        Path other = dir.resolve("unrelated"); // all hole: what the old code described instead
        try (FileChannel c = FileChannel.open(other, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            c.truncate(0).write(ByteBuffer.allocate(1), 2L * HALF - 1);
        }
        FileBlockDevice d = new FileBlockDevice(disk, false);
        List<Integer> before = descriptorsOf(disk);
        List<FileChannel> opened = new ArrayList<>();
        List<long[]> extents = new ArrayList<>();
        try {
            int r = d.blockStatus(0, 2L * HALF, (length, state) -> {
                extents.add(new long[] {length, state});
                if (extents.size() == 1) {
                    d.close(); // the device is closed between two lseeks of one block status
                    try {
                        // Whatever number close freed goes to the unrelated file (lowest first).
                        for (int i = 0; i < 16 && descriptorsOf(disk).size() < before.size(); i++) {
                            opened.add(FileChannel.open(other, StandardOpenOption.READ));
                        }
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                }
                return true;
            });
            assertEquals(0, r);
            assertEquals(2, extents.size(), "a hole then data, from the device's own file");
            assertEquals(HALF, extents.get(0)[0]);
            assertEquals(Extents.HOLE | Extents.ZERO, extents.get(0)[1]);
            assertEquals(HALF, extents.get(1)[0]);
            assertEquals(0, extents.get(1)[1], "the data half, not the unrelated file's hole");
        } finally {
            for (FileChannel c : opened) {
                c.close();
            }
        }
        assertTrue(descriptorsOf(disk).isEmpty(), "both descriptors closed once the last operation ended");
        int[] error = {-1};
        d.trim(0, HALF, false, e -> error[0] = e);
        assertFalse(error[0] == 0, "a TRIM after close fails rather than act on another file");
        d.close(); // a second close does nothing
    }
}
