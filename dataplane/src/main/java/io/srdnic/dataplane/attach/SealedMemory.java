package io.srdnic.dataplane.attach;

import io.srdnic.ffm.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A client's shared memory as a file descriptor the dataplane holds and passes to the client over
 * the control socket (SCM_RIGHTS): by default an anonymous {@code memfd} (memfd_create(2)) sealed
 * with {@code F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL}, so no process, the client included, can
 * make it shorter than the dataplane mapped it (no SIGBUS), and with no name anywhere another
 * process could open; with {@code --shm-dir}, a file made exclusively there (0600, never through a
 * link). Either way its pages are allocated with {@code fallocate} before the client is answered:
 * a full filesystem is ENOSPC in the OPEN's error reply, not a SIGBUS at a later touch.
 * Mappings are made with mmap into an arena the session closes when the client goes: munmap then,
 * not when a GC happens to run. Control path only.
 */
final class SealedMemory {
    private SealedMemory() {
    }

    /**
     * A sealed memfd of {@code bytes} named {@code name} (seen in /proc/PID/fd and /proc/PID/maps
     * only), its pages allocated; returns its fd.
     */
    static int create(String name, long bytes) throws IOException {
        int fd = Libc.memfdCreate(name, Libc.MFD_CLOEXEC | Libc.MFD_ALLOW_SEALING);
        if (fd < 0) {
            throw Libc.failure("memfd_create");
        }
        try {
            allocate(fd, bytes);
            if (Libc.fcntl(fd, Libc.F_ADD_SEALS, Libc.F_SEAL_SHRINK | Libc.F_SEAL_GROW | Libc.F_SEAL_SEAL) != 0) {
                throw Libc.failure("sealing");
            }
            return fd;
        } catch (IOException | RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
    }

    /**
     * A new file {@code path} (0600; refused if anything is there, a link included) of {@code
     * bytes}, its blocks allocated; returns its fd.
     */
    static int createFile(Path path, long bytes) throws IOException {
        int fd = Libc.open(path.toString(), Libc.O_RDWR | Libc.O_CREAT | Libc.O_EXCL | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0600);
        if (fd < 0) {
            throw Libc.failure("creating " + path);
        }
        try {
            allocate(fd, bytes);
            return fd;
        } catch (IOException | RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
    }

    /** Sizes {@code fd} to {@code bytes} with every page allocated now (fallocate), so no later touch can find the filesystem full. */
    private static void allocate(int fd, long bytes) throws IOException {
        if (Libc.fallocate(fd, 0, 0, bytes) != 0) {
            throw Libc.failure("fallocate of " + bytes + " bytes");
        }
    }

    /** Maps all {@code bytes} of {@code fd} shared into {@code arena}: closing it unmaps them. */
    static MemorySegment map(int fd, long bytes, Arena arena) throws IOException {
        return Libc.mapShared(fd, bytes, arena);
    }

    /** The size of the file {@code fd} now (a client may have truncated a --shm-dir file), or -1 if it cannot be told. */
    static long size(int fd) {
        return Libc.lseek(fd, 0, Libc.SEEK_END);
    }

    static void close(int fd) {
        Libc.close(fd);
    }
}
