package io.srdnic.dataplane;

import io.srdnic.ffm.Libc;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code --shm-dir}, checked at start rather than at the first attach: it must be a directory the
 * dataplane can create files in (a probe file is made exclusively and removed). An error names the
 * directory, what failed and the errno with its meaning, in one line.
 */
final class ShmDirectory {
    private ShmDirectory() {
    }

    static void check(Path dir) {
        if (!Files.isDirectory(dir)) {
            String why = Files.exists(dir, LinkOption.NOFOLLOW_LINKS) ? Libc.describe(Libc.ENOTDIR) : Libc.describe(Libc.ENOENT);
            throw new IllegalStateException("--shm-dir " + dir + ": " + why
                    + ": clients' shared memory is made there (the default is /dev/shm)");
        }
        Path probe = dir.resolve("srdnic-probe-" + ProcessHandle.current().pid());
        try {
            Files.deleteIfExists(probe);
            try (FileChannel ignored = FileChannel.open(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                // made: the directory takes our files
            }
            Files.delete(probe);
        } catch (IOException e) {
            throw new IllegalStateException("--shm-dir " + dir + ": cannot create a file in it: " + Errno.of(e), e);
        }
    }
}
