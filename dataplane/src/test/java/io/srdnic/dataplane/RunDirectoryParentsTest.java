package io.srdnic.dataplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whoever can write in a parent of the run directory can rename the run directory away after it is
 * checked and put their own in its place, and every later write by path follows the swap. So each
 * directory from the run directory's real path up to / must be root's or the dataplane's uid's,
 * and writable by group or others only with the sticky bit (as /tmp, 1777).
 */
class RunDirectoryParentsTest {
    @TempDir
    Path tmp; // under /tmp (root's, 1777), itself 0700 and ours

    @Test
    void shouldRefuseARunDirectoryUnderAParentOthersCanWriteInWithoutTheStickyBit() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setAttribute(open, "unix:mode", 0777);
        Path dir = Files.createDirectory(open.resolve("run"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(dir));
        assertTrue(e.getMessage().contains(open + " (mode rwxrwxrwx, uid "), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line");
        IllegalStateException missing = assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(open.resolve("new")),
            "nor is a missing one made there");
        assertTrue(missing.getMessage().contains(open.toString()), missing.getMessage());
        Files.setAttribute(open, "unix:mode", 0775);
        assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(dir), "group-writable is refused too");
    }

    @Test
    void shouldAcceptARunDirectoryUnderAStickyParent() throws Exception {
        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        assertEquals(sticky.resolve("run"), RunDirectory.prepare(sticky.resolve("run")));
        assertEquals(Path.of("/tmp/srdnic-parents-" + ProcessHandle.current().pid()),
            RunDirectory.prepare(Path.of("/tmp/srdnic-parents-" + ProcessHandle.current().pid())), "the README's /tmp/DIR");
        Files.delete(Path.of("/tmp/srdnic-parents-" + ProcessHandle.current().pid()));
    }

    @Test
    void shouldCheckTheParentsOfTheRealPathThroughALinkedParent() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setAttribute(open, "unix:mode", 0777);
        Path real = Files.createDirectories(open.resolve("real/run"));
        Path via = Files.createSymbolicLink(tmp.resolve("via"), real.getParent());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(via.resolve("run")));
        assertTrue(e.getMessage().contains(open.toString()), e.getMessage());
    }

    @Test
    void shouldRefuseAParentOfAnotherUid() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "chown to another uid needs root");
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Path dir = Files.createDirectory(theirs.resolve("run"));
        Files.setAttribute(theirs, "unix:uid", 65534);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(dir));
        assertTrue(e.getMessage().contains(theirs + " (mode rwxr-xr-x, uid 65534)"), e.getMessage());
    }
}
