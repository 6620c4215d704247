package io.srdnic.dataplane;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
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
import java.nio.file.Path;

/**
 * The libc calls {@link PidLock} needs on one descriptor, which Java's FileChannel does not give:
 * open with O_NOFOLLOW and an explicit creation mode, flock (a lock per open file, so two opens
 * conflict even within one process), fchmod, ftruncate, pwrite, fsync, close. The descriptor's own
 * file is read through {@code /proc/self/fd/N} (fstat's answer: the file open, not whatever the
 * name points at now). Each call returns the libc result, or {@code -errno} when it failed.
 */
@SuppressWarnings("restricted") // native access is granted at launch: --enable-native-access=ALL-UNNAMED
final class PidFileCalls {
    static final int O_RDWR = 2;
    static final int O_CREAT = 0x40;
    static final int O_NONBLOCK = 0x800; // a FIFO planted at the name must not block the open
    static final int O_NOFOLLOW = "aarch64".equals(System.getProperty("os.arch")) ? 0x8000 : 0x20000;
    static final int O_CLOEXEC = 0x80000;
    static final int LOCK_EX = 2;
    static final int LOCK_NB = 4;
    static final int EWOULDBLOCK = 11;
    static final int ELOOP = 40;
    static final int EINTR = 4;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final MethodHandle OPEN = LINKER.downcallHandle(LINKER.defaultLookup().find("open").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), CAPTURE_ERRNO, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle FLOCK = handle("flock", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle FCHMOD = handle("fchmod", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle FTRUNCATE = handle("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle PWRITE = handle("pwrite", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle FSYNC = handle("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private PidFileCalls() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor, CAPTURE_ERRNO);
    }

    /** open(path, flags, mode): the descriptor, or -errno. */
    static int open(Path path, int flags, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(path.toString()), flags, mode);
            return fd >= 0 ? fd : -errno(state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** flock(fd, op), retried on EINTR: 0, or -errno (-EWOULDBLOCK: another open file holds it). */
    static int flock(int fd, int op) {
        return intCall(FLOCK, fd, op);
    }

    static int fchmod(int fd, int mode) {
        return intCall(FCHMOD, fd, mode);
    }

    static int ftruncate(int fd, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int r = (int) FTRUNCATE.invokeExact(state, fd, length);
            return r == 0 ? 0 : -errno(state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** pwrite of all of {@code bytes} at {@code offset}: the count written, or -errno. */
    static long pwrite(int fd, byte[] bytes, long offset) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment buf = arena.allocateFrom(JAVA_BYTE, bytes);
            long n = (long) PWRITE.invokeExact(state, fd, buf, (long) bytes.length, offset);
            return n >= 0 ? n : -errno(state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int fsync(int fd) {
        return fdCall(FSYNC, fd);
    }

    static int close(int fd) {
        return fdCall(CLOSE, fd);
    }

    /** The path through which this process's {@code fd} is stat'ed as fstat would (the link in /proc is followed to the open file). */
    static Path self(int fd) {
        return Path.of("/proc/self/fd/" + fd);
    }

    private static int fdCall(MethodHandle h, int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int r = (int) h.invokeExact(state, fd);
            return r == 0 ? 0 : -errno(state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int intCall(MethodHandle h, int fd, int arg) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            while (true) {
                int r = (int) h.invokeExact(state, fd, arg);
                if (r == 0) {
                    return 0;
                }
                int e = errno(state);
                if (e != EINTR) {
                    return -e;
                }
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
