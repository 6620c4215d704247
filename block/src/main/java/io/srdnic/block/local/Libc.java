package io.srdnic.block.local;

import java.lang.foreign.MemorySegment;

/**
 * The few libc calls the local devices need and Java does not offer, through srdnic's one libc
 * binding ({@link io.srdnic.ffm.Libc}): anonymous mappings ({@code mmap}, {@code munmap},
 * {@code madvise}) for memory that is not on the heap, and {@code fallocate} and
 * {@code lseek(SEEK_DATA/SEEK_HOLE)} for holes in files. Each call returns the libc result, or
 * {@code -errno} when it failed, so callers tell "not supported here" from a real error without
 * exceptions; none allocates (TRIM and SEEK_DATA run per request).
 */
final class Libc {
    static final int PROT_READ = io.srdnic.ffm.Libc.PROT_READ;
    static final int PROT_WRITE = io.srdnic.ffm.Libc.PROT_WRITE;
    static final int MAP_PRIVATE = io.srdnic.ffm.Libc.MAP_PRIVATE;
    static final int MAP_ANONYMOUS = io.srdnic.ffm.Libc.MAP_ANONYMOUS;
    static final int MAP_NORESERVE = io.srdnic.ffm.Libc.MAP_NORESERVE;
    static final int MADV_DONTNEED = io.srdnic.ffm.Libc.MADV_DONTNEED;
    static final int FALLOC_FL_KEEP_SIZE = io.srdnic.ffm.Libc.FALLOC_FL_KEEP_SIZE;
    static final int FALLOC_FL_PUNCH_HOLE = io.srdnic.ffm.Libc.FALLOC_FL_PUNCH_HOLE;
    static final int FALLOC_FL_ZERO_RANGE = io.srdnic.ffm.Libc.FALLOC_FL_ZERO_RANGE;
    static final int SEEK_DATA = io.srdnic.ffm.Libc.SEEK_DATA;
    static final int SEEK_HOLE = io.srdnic.ffm.Libc.SEEK_HOLE;
    static final int O_RDONLY = io.srdnic.ffm.Libc.O_RDONLY;
    static final int O_RDWR = io.srdnic.ffm.Libc.O_RDWR;
    static final int O_NOFOLLOW = io.srdnic.ffm.Libc.O_NOFOLLOW; // by os.arch: it differs on aarch64
    static final int O_CLOEXEC = io.srdnic.ffm.Libc.O_CLOEXEC;
    static final int EBADF = io.srdnic.ffm.Libc.EBADF;
    static final int ENXIO = io.srdnic.ffm.Libc.ENXIO;
    static final int ENOMEM = io.srdnic.ffm.Libc.ENOMEM;
    static final int ENOSPC = io.srdnic.ffm.Libc.ENOSPC;
    static final int EOPNOTSUPP = io.srdnic.ffm.Libc.EOPNOTSUPP;

    private Libc() {
    }

    /**
     * A private anonymous mapping of {@code bytes}, readable and writable, reserved without swap
     * accounting (MAP_NORESERVE): no page exists until written, an unwritten page reads as zeroes.
     * Returns its address (0-length segment) or throws with the errno.
     */
    static MemorySegment mapAnonymous(long bytes) {
        MemorySegment at = io.srdnic.ffm.Libc.mmap(MemorySegment.NULL, bytes, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0L);
        if (io.srdnic.ffm.Libc.mapFailed(at)) {
            throw new IllegalStateException("mmap of " + bytes + " bytes failed: "
                    + io.srdnic.ffm.Libc.describe(io.srdnic.ffm.Libc.errno()));
        }
        return at;
    }

    static int munmap(MemorySegment at, long bytes) {
        return result(io.srdnic.ffm.Libc.munmap(at, bytes));
    }

    static int madvise(MemorySegment at, long bytes, int advice) {
        return result(io.srdnic.ffm.Libc.madvise(at, bytes, advice));
    }

    static int fallocate(int fd, int mode, long offset, long length) {
        return result(io.srdnic.ffm.Libc.fallocate(fd, mode, offset, length));
    }

    /** lseek's result, or {@code -errno}. */
    static long lseek(int fd, long offset, int whence) {
        long r = io.srdnic.ffm.Libc.lseek(fd, offset, whence);
        return r < 0 ? -io.srdnic.ffm.Libc.errno() : r;
    }

    /** open(2) of a path that must not be a symbolic link (O_NOFOLLOW), close-on-exec; the fd or {@code -errno}. */
    static int open(String path, int flags) {
        return result(io.srdnic.ffm.Libc.open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0));
    }

    static void close(int fd) {
        io.srdnic.ffm.Libc.close(fd);
    }

    private static int result(int r) {
        return r < 0 ? -io.srdnic.ffm.Libc.errno() : r;
    }
}
