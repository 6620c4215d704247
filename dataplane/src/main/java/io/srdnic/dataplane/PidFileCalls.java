package io.srdnic.dataplane;

import io.srdnic.ffm.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.function.IntSupplier;

/**
 * The libc calls {@link PidLock} needs on one descriptor, which Java's FileChannel does not give
 * (through {@link Libc}): open with O_NOFOLLOW and an explicit creation mode, flock (a lock per
 * open file, so two opens conflict even within one process), fchmod, ftruncate, pwrite, fsync,
 * close. The descriptor's own file is read through {@code /proc/self/fd/N} (fstat's answer: the
 * file open, not whatever the name points at now). Each call returns the libc result, or
 * {@code -errno} when it failed.
 */
final class PidFileCalls {
    static final int O_RDWR = Libc.O_RDWR;
    static final int O_CREAT = Libc.O_CREAT;
    static final int O_NONBLOCK = Libc.O_NONBLOCK; // a FIFO planted at the name must not block the open
    static final int O_NOFOLLOW = Libc.O_NOFOLLOW;
    static final int O_CLOEXEC = Libc.O_CLOEXEC;
    static final int LOCK_EX = Libc.LOCK_EX;
    static final int LOCK_NB = Libc.LOCK_NB;
    static final int EWOULDBLOCK = Libc.EWOULDBLOCK;
    static final int ELOOP = Libc.ELOOP;

    private PidFileCalls() {
    }

    /** open(path, flags, mode): the descriptor, or -errno. */
    static int open(Path path, int flags, int mode) {
        int fd = Libc.open(path.toString(), flags, mode);
        return fd >= 0 ? fd : -Libc.errno();
    }

    /** flock(fd, op), retried on EINTR: 0, or -errno (-EWOULDBLOCK: another open file holds it). */
    static int flock(int fd, int op) {
        return retryingEintr(() -> Libc.flock(fd, op));
    }

    static int fchmod(int fd, int mode) {
        return retryingEintr(() -> Libc.fchmod(fd, mode));
    }

    private static int retryingEintr(IntSupplier call) {
        while (true) {
            if (call.getAsInt() == 0) {
                return 0;
            }
            int e = Libc.errno();
            if (e != Libc.EINTR) {
                return -e;
            }
        }
    }

    static int ftruncate(int fd, long length) {
        return Libc.ftruncate(fd, length) == 0 ? 0 : -Libc.errno();
    }

    /** pwrite of all of {@code bytes} at {@code offset}: the count written, or -errno. */
    static long pwrite(int fd, byte[] bytes, long offset) {
        try (Arena arena = Arena.ofConfined()) { // once per start: the pid
            MemorySegment buf = arena.allocateFrom(ValueLayout.JAVA_BYTE, bytes);
            long n = Libc.pwrite(fd, buf, bytes.length, offset);
            return n >= 0 ? n : -Libc.errno();
        }
    }

    static int fsync(int fd) {
        return Libc.fsync(fd) == 0 ? 0 : -Libc.errno();
    }

    static int close(int fd) {
        return Libc.close(fd) == 0 ? 0 : -Libc.errno();
    }

    /** The path through which this process's {@code fd} is stat'ed as fstat would (the link in /proc is followed to the open file). */
    static Path self(int fd) {
        return Path.of("/proc/self/fd/" + fd);
    }
}
