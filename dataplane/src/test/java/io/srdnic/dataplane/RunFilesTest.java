package io.srdnic.dataplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dataplane's run directory and the files it writes there, as a local attacker would try them:
 * a link planted where the pid file goes is not followed (its target keeps its
 * bytes), a run directory others can write in is refused, a pid file left by a dead dataplane is
 * replaced and one held by a live one is not, and the modes are the stated ones (this JVM's umask
 * is 022; the dataplane IT checks 000 and 077 on a real process).
 */
class RunFilesTest {
    @TempDir
    Path tmp;

    @Test
    void shouldNotFollowALinkPlantedAtThePidFile() throws Exception {
        Path dir = RunDirectory.prepare(tmp.resolve("run"));
        Path victim = Files.writeString(tmp.resolve("victim"), "precious\n");
        Files.createSymbolicLink(dir.resolve(PidLock.FILE), victim);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PidLock.acquire(dir));
        assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
        assertEquals("precious\n", Files.readString(victim), "the link's target is not written");
        assertTrue(Files.isSymbolicLink(dir.resolve(PidLock.FILE)), "nor is the link removed: it is reported");
    }

    @Test
    void shouldNotCreateTheTargetOfADanglingLinkAtThePidFile() throws Exception {
        // The pid file is opened O_CREAT without O_EXCL: only O_NOFOLLOW keeps a dangling link from making its target.
        Path dir = RunDirectory.prepare(tmp.resolve("run"));
        Path target = tmp.resolve("made-through-the-link");
        Files.createSymbolicLink(dir.resolve(PidLock.FILE), target);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PidLock.acquire(dir));
        assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
        assertFalse(Files.exists(target, LinkOption.NOFOLLOW_LINKS), "the link's target is not created");
    }

    @Test
    void shouldReplaceAStalePidFile() throws Exception {
        Path dir = RunDirectory.prepare(tmp.resolve("run"));
        Path pid = Files.writeString(dir.resolve(PidLock.FILE), "999999\n"); // left by a dataplane killed with -9: nobody holds its lock
        try (PidLock lock = PidLock.acquire(dir)) {
            assertEquals(ProcessHandle.current().pid() + "\n", Files.readString(pid));
            assertEquals(PidLock.MODE, mode(pid));
        }
        assertFalse(Files.exists(pid), "removed when its dataplane stops");
    }

    @Test
    void shouldRefuseAPidFileAnotherDataplaneHolds() throws Exception {
        Path dir = RunDirectory.prepare(tmp.resolve("run"));
        try (PidLock lock = PidLock.acquire(dir)) {
            Path pid = dir.resolve(PidLock.FILE);
            // Held (by this JVM's lock here, as by a live dataplane): a second may neither take nor remove it.
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> PidLock.acquire(dir));
            assertTrue(e.getMessage().contains("another srdnic dataplane (pid " + ProcessHandle.current().pid() + ")"), e.getMessage());
            assertEquals(ProcessHandle.current().pid() + "\n", Files.readString(pid), "the holder's pid file is left as it was");
        }
    }

    @Test
    void shouldRefuseARunDirectoryOthersCanWriteIn() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(open));
        assertTrue(e.getMessage().contains("group or others may write in it"), e.getMessage());
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(open), "group-writable is refused too");
        Path link = Files.createSymbolicLink(tmp.resolve("link"), Files.createDirectory(tmp.resolve("real")));
        e = assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(link));
        assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
        Path made = RunDirectory.prepare(tmp.resolve("a/b/run"));
        assertEquals(RunDirectory.MODE, mode(made));
    }

    @Test
    void shouldRefuseARunDirectoryOfAnotherUid() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "chown to another uid needs root");
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Files.setAttribute(theirs, "unix:uid", 65534);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(theirs));
        assertTrue(e.getMessage().contains("is owned by uid 65534"), e.getMessage());
    }

    @Test
    void shouldSweepOnlyTheFilesOfDeadPids() throws Exception {
        Path dir = RunDirectory.prepare(tmp.resolve("run"));
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        Path eal = Files.createDirectory(tmp.resolve("dpdk"));
        long dead = deadPid();
        long live = ProcessHandle.current().parent().orElseThrow().pid();
        Path deadCounters = Files.createFile(dir.resolve(dead + "-attach.counters"));
        Path liveCounters = Files.createFile(dir.resolve(live + "-attach.counters"));
        Path deadShm = Files.createFile(shm.resolve("srdnic-" + dead + "-1"));
        Path liveShm = Files.createFile(shm.resolve("srdnic-" + live + "-1"));
        Path deadEal = Files.createDirectories(eal.resolve("srdnic-" + dead).resolve("config"));
        Path liveEal = Files.createDirectory(eal.resolve("srdnic-" + live));
        Path oldLcore = Files.createFile(Files.createDirectory(dir.resolve("lcore-3")).resolve("control.sock"));
        Path keptLcore = Files.createFile(Files.createDirectory(dir.resolve("lcore-1")).resolve("control.sock"));
        var swept = StaleFiles.sweep(dir, shm, eal, 2);
        assertFalse(Files.exists(deadCounters));
        assertFalse(Files.exists(deadShm));
        assertFalse(Files.exists(deadEal.getParent()));
        assertFalse(Files.exists(oldLcore), "an lcore this dataplane does not run: its socket is stale");
        assertTrue(Files.exists(liveCounters) && Files.exists(liveShm) && Files.exists(liveEal), "a live pid's files stay");
        assertTrue(Files.exists(keptLcore), "an lcore it runs replaces its own socket");
        assertEquals(4, swept.size(), swept.toString());
    }

    @Test
    void shouldSweepWithoutAnShmDir() throws Exception {
        // no --shm-dir: clients' memory is sealed memfds, which leave nothing behind to sweep
        Path dir = RunDirectory.prepare(tmp.resolve("run"));
        Path eal = Files.createDirectory(tmp.resolve("dpdk"));
        Path deadCounters = Files.createFile(dir.resolve(deadPid() + "-attach.counters"));
        var swept = StaleFiles.sweep(dir, null, eal, 1);
        assertFalse(Files.exists(deadCounters));
        assertEquals(List.of(deadCounters), swept);
    }

    @Test
    void shouldNameTheErrnoOfABadDirOrShmDirInOneLine() throws Exception {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RunDirectory.prepare(file.resolve("run")));
        assertTrue(e.getMessage().contains(": ENOTDIR (Not a directory) at "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> ShmDirectory.check(tmp.resolve("missing")));
        assertEquals("--shm-dir " + tmp.resolve("missing") + ": ENOENT (No such file or directory): clients' shared memory is made"
            + " there (the default is /dev/shm)", e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> ShmDirectory.check(file));
        assertTrue(e.getMessage().contains(": ENOTDIR (Not a directory):"), e.getMessage());
        ShmDirectory.check(tmp); // a directory it can write in: no error
    }

    private static long deadPid() {
        for (long p = 4_000_000; p > 300_000; p -= 7919) {
            if (ProcessHandle.of(p).isEmpty()) {
                return p;
            }
        }
        throw new IllegalStateException("no free pid found");
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }
}
