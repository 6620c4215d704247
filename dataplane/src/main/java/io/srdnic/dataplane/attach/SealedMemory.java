package io.srdnic.dataplane.attach;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * A client's shared memory as an anonymous {@code memfd} (memfd_create(2)) sized once and sealed
 * with {@code F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL}: no process, the client included, can make
 * it shorter than the dataplane mapped it, so no access of the dataplane's to it can fault (SIGBUS),
 * and it has no name in /dev/shm that another process could open. The client opens it as
 * {@code /proc/<dataplane pid>/fd/<fd>} (a new open of the same memory, the seals with it), which
 * the kernel allows a process that may inspect the dataplane (ptrace read access: the same uid, or
 * root). Java's {@code SocketChannel} carries no ancillary data, so the fd is not passed with
 * SCM_RIGHTS; a client of another uid needs {@code --shm-dir} (a file). Control path only.
 */
@SuppressWarnings("restricted") // native access is granted at launch: --enable-native-access=ALL-UNNAMED
final class SealedMemory {
    private static final int MFD_CLOEXEC = 1;
    private static final int MFD_ALLOW_SEALING = 2;
    private static final int F_ADD_SEALS = 1033;
    private static final int F_SEAL_SEAL = 1;
    private static final int F_SEAL_SHRINK = 2;
    private static final int F_SEAL_GROW = 4;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO_VALUE = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle MEMFD_CREATE = handle("memfd_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), ERRNO);
    private static final MethodHandle FTRUNCATE = handle("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), ERRNO);
    private static final MethodHandle FCNTL = handle("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), ERRNO,
        Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle STRERROR = handle("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private SealedMemory() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor d, Linker.Option... options) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d, options);
    }

    /** A sealed memfd of {@code bytes} named {@code name} (for /proc/PID/fd and /proc/PID/maps only); returns its fd. */
    static int create(String name, long bytes) throws java.io.IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int fd = (int) MEMFD_CREATE.invokeExact(state, arena.allocateFrom(name), MFD_CLOEXEC | MFD_ALLOW_SEALING);
            if (fd < 0) {
                throw failure("memfd_create", state);
            }
            if ((int) FTRUNCATE.invokeExact(state, fd, bytes) != 0) {
                java.io.IOException e = failure("ftruncate to " + bytes + " bytes", state);
                close(fd);
                throw e;
            }
            if ((int) FCNTL.invokeExact(state, fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
                java.io.IOException e = failure("sealing", state);
                close(fd);
                throw e;
            }
            return fd;
        } catch (java.io.IOException | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("memfd_create failed", t);
        }
    }

    /** Where this process (and one allowed to inspect it) opens memfd {@code fd}. */
    static Path path(int fd) {
        return Path.of("/proc/" + ProcessHandle.current().pid() + "/fd/" + fd);
    }

    /** Where this process opens its own fd {@code fd} again. */
    static Path ownPath(int fd) {
        return Path.of("/proc/self/fd/" + fd);
    }

    static void close(int fd) {
        try {
            int rc = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException("close(" + fd + ") failed", t);
        }
    }

    private static java.io.IOException failure(String what, MemorySegment state) throws Throwable {
        int errno = (int) ERRNO_VALUE.get(state, 0L);
        MemorySegment message = (MemorySegment) STRERROR.invokeExact(errno);
        return new java.io.IOException(what + " failed: errno " + errno + " (" + message.reinterpret(256).getString(0) + ")");
    }
}
