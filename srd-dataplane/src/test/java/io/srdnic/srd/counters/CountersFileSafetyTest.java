package io.srdnic.srd.counters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A counters file is made as a daemon makes its files: a link planted at its name, or at the
 * temporary name it is made under, is never written through (its target keeps its bytes), and the
 * file's mode is 0640 whatever the umask (this JVM's is 022, which gave 0644 before; the dataplane
 * IT checks umask 000 and 077 on a real process).
 */
class CountersFileSafetyTest {
    @TempDir
    Path tmp;

    @Test
    void shouldNotWriteThroughALink() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("run"));
        Path file = dir.resolve("1-x" + CountersLayout.FILE_SUFFIX);
        Path victim = Files.writeString(tmp.resolve("victim"), "precious\n");
        Files.createSymbolicLink(file, victim);
        Files.createSymbolicLink(dir.resolve(file.getFileName() + ".tmp-" + ProcessHandle.current().pid()), victim);
        try (CountersWriter w = CountersWriter.create(file, "test", 8)) {
            assertFalse(Files.isSymbolicLink(file), "the link is replaced by the new file, not written through");
        }
        assertEquals("precious\n", Files.readString(victim));
    }

    @Test
    void shouldGiveMode0640() throws Exception {
        Path file = Files.createDirectory(tmp.resolve("run")).resolve("1-x" + CountersLayout.FILE_SUFFIX);
        try (CountersWriter w = CountersWriter.create(file, "test", 8)) {
            assertEquals(CountersWriter.MODE, PosixFilePermissions.toString(Files.getPosixFilePermissions(file,
                    LinkOption.NOFOLLOW_LINKS)));
        }
    }
}
