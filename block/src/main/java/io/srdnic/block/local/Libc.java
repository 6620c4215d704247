package io.srdnic.block.local;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The few libc calls the local devices need and Java does not offer: anonymous mappings
 * ({@code mmap}, {@code munmap}, {@code madvise}) for memory that is not on the heap, and
 * {@code fallocate} and {@code lseek(SEEK_DATA/SEEK_HOLE)} for holes in files. Linux x86-64 and
 * aarch64 values. Each call returns the libc result, or {@code -errno} when it failed, so callers
 * tell "not supported here" from a real error without exceptions.
 */
@SuppressWarnings("restricted") // native access is granted at launch: --enable-native-access=ALL-UNNAMED
final class Libc {
    static final int PROT_READ = 1;
    static final int PROT_WRITE = 2;
    static final int MAP_PRIVATE = 0x02;
    static final int MAP_ANONYMOUS = 0x20;
    static final int MAP_NORESERVE = 0x4000;
    /** Private anonymous pages: freed, and read back as zeroes. */
    static final int MADV_DONTNEED = 4;
    static final int FALLOC_FL_KEEP_SIZE = 1;
    static final int FALLOC_FL_PUNCH_HOLE = 2;
    static final int FALLOC_FL_ZERO_RANGE = 0x10;
    static final int SEEK_DATA = 3;
    static final int SEEK_HOLE = 4;
    static final int O_RDONLY = 0;
    static final int O_RDWR = 2;
    static final int O_NOFOLLOW = 0x20000;
    static final int O_CLOEXEC = 0x80000;
    static final int EBADF = 9;
    static final int ENXIO = 6;
    static final int ENOMEM = 12;
    static final int ENOSPC = 28;
    static final int EOPNOTSUPP = 95;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final MethodHandle MMAP = handle("mmap", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = handle("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle MADVISE = handle("madvise", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle FALLOCATE = handle("fallocate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle LSEEK = handle("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle OPEN = handle("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Libc() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor, CAPTURE_ERRNO);
    }

    /**
     * A private anonymous mapping of {@code bytes}, readable and writable, reserved without swap
     * accounting (MAP_NORESERVE): no page exists until written, an unwritten page reads as zeroes.
     * Returns its address (0-length segment) or throws with the errno.
     */
    static MemorySegment mapAnonymous(long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment at = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, bytes, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0L);
            if (at.address() == -1L) {
                throw new IllegalStateException("mmap of " + bytes + " bytes failed: errno " + errno(state));
            }
            return at;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("mmap", t);
        }
    }

    static int munmap(MemorySegment at, long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            return result((int) MUNMAP.invokeExact(state, at, bytes), state);
        } catch (Throwable t) {
            throw new IllegalStateException("munmap", t);
        }
    }

    static int madvise(MemorySegment at, long bytes, int advice) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            return result((int) MADVISE.invokeExact(state, at, bytes, advice), state);
        } catch (Throwable t) {
            throw new IllegalStateException("madvise", t);
        }
    }

    static int fallocate(int fd, int mode, long offset, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            return result((int) FALLOCATE.invokeExact(state, fd, mode, offset, length), state);
        } catch (Throwable t) {
            throw new IllegalStateException("fallocate", t);
        }
    }

    /** lseek's result, or {@code -errno}. */
    static long lseek(int fd, long offset, int whence) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            long r = (long) LSEEK.invokeExact(state, fd, offset, whence);
            return r < 0 ? -errno(state) : r;
        } catch (Throwable t) {
            throw new IllegalStateException("lseek", t);
        }
    }

    /** open(2) of a path that must not be a symbolic link (O_NOFOLLOW), close-on-exec; the fd or {@code -errno}. */
    static int open(String path, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            return result((int) OPEN.invokeExact(state, arena.allocateFrom(path), flags | O_NOFOLLOW | O_CLOEXEC, 0), state);
        } catch (Throwable t) {
            throw new IllegalStateException("open", t);
        }
    }

    static void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int ignored = (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw new IllegalStateException("close", t);
        }
    }

    private static int result(int r, MemorySegment state) {
        return r < 0 ? -errno(state) : r;
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }
}
