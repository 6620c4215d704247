package io.srdnic.dataplane.attach;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The control socket's listening end and its connections as plain file descriptors, through libc
 * (FFM): Java's {@code SocketChannel} gives the peer's uid only as a user name and never its pid,
 * and hands out no descriptor to ask the kernel ourselves. Here {@code accept4} returns the
 * descriptor and {@code getsockopt(SO_PEERCRED)} the peer's numeric pid, uid and gid as the kernel
 * recorded them at connect. Every descriptor is non-blocking and close-on-exec; readiness comes from
 * one {@code poll} over all of them per control interval ({@link #poll}); sends never raise SIGPIPE.
 * One thread (the lcore's) uses an instance. Control path only: no call here is per work request.
 */
@SuppressWarnings("restricted") // native access is granted at launch: --enable-native-access=ALL-UNNAMED
final class UnixListener implements AutoCloseable {
    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_NONBLOCK = 0x800;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_PEERCRED = 17;
    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_NOSIGNAL = 0x4000;
    static final short POLLIN = 0x1;
    static final short POLLERR = 0x8;
    static final short POLLHUP = 0x10;
    static final int EAGAIN = 11;
    private static final int EINTR = 4;
    private static final int SUN_PATH_BYTES = 108;
    private static final int BACKLOG = 128;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option ERRNO_CAPTURE = Linker.Option.captureCallState("errno");
    private static final MethodHandle SOCKET = downcall("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = downcall("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle LISTEN = downcall("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle ACCEPT4 = downcall("accept4", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKOPT = downcall("getsockopt",
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle RECV = downcall("recv", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle SEND = downcall("send", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle POLL = downcall("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LIBC.find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(LIBC.find("strerror").orElseThrow(),
        FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /** A connected peer as the kernel recorded it when it connected. */
    record Peer(int fd, int pid, int uid, int gid) {
    }

    private final Path path;
    private final int fd;
    private final Arena arena = Arena.ofShared(); // made on one thread, run on the lcore's in tests and benches
    private final MemorySegment state = arena.allocate(CALL_STATE);
    private final MemorySegment cred = arena.allocate(12, 4);
    private final MemorySegment credLength = arena.allocate(JAVA_INT);
    private MemorySegment pollFds;
    private int pollCapacity;

    private UnixListener(Path path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    /**
     * Listens on {@code path} (made by bind: a file there already must have been removed by the
     * caller), then gives it mode {@code mode} and group {@code gid} (-1: leave it) explicitly, so
     * that the umask plays no part. The directory is the dataplane's own (checked at start), so no
     * one else can swap the socket between bind and chmod.
     */
    static UnixListener listen(Path path, String mode, int gid) throws IOException {
        byte[] name = path.toString().getBytes(StandardCharsets.UTF_8);
        if (name.length >= SUN_PATH_BYTES) {
            throw new IOException("the socket path " + path + " is " + name.length + " bytes: a unix socket's is at most " + (SUN_PATH_BYTES - 1)
                + " (choose a shorter --dir)");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            int fd = (int) SOCKET.invokeExact(st, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            check(fd, st, "socket(AF_UNIX)");
            try {
                MemorySegment address = a.allocate(2 + SUN_PATH_BYTES, 2);
                address.set(JAVA_SHORT, 0, (short) AF_UNIX);
                MemorySegment.copy(name, 0, address, java.lang.foreign.ValueLayout.JAVA_BYTE, 2, name.length);
                check((int) BIND.invokeExact(st, fd, address, 2 + name.length + 1), st, "bind " + path);
                // chmod by path: a socket cannot be opened to fchmod it, and Linux has no chmod that refuses a link;
                // bind just made this inode in a directory only the dataplane's uid can write.
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
                if (gid >= 0) {
                    Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
                }
                check((int) LISTEN.invokeExact(st, fd, BACKLOG), st, "listen on " + path);
                return new UnixListener(path, fd);
            } catch (IOException | RuntimeException e) {
                closeFd(fd);
                throw e;
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    Path path() {
        return path;
    }

    /** The next waiting connection with its credentials, or null when none waits (EAGAIN). */
    Peer accept() throws IOException {
        int c;
        try {
            c = (int) ACCEPT4.invokeExact(state, fd, MemorySegment.NULL, MemorySegment.NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (c < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                if (errno == EAGAIN || errno == EINTR) {
                    return null;
                }
                throw new IOException("accept on " + path + ": " + describe(errno));
            }
            credLength.set(JAVA_INT, 0, 12);
            int rc = (int) GETSOCKOPT.invokeExact(state, c, SOL_SOCKET, SO_PEERCRED, cred, credLength);
            if (rc < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                closeFd(c);
                throw new IOException("SO_PEERCRED of a new connection: " + describe(errno));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return new Peer(c, cred.get(JAVA_INT, 0), cred.get(JAVA_INT, 4), cred.get(JAVA_INT, 8));
    }

    /**
     * Reads what is there into {@code into} (a direct buffer) from its position: the bytes read,
     * 0 when nothing waits, -1 at end of stream or on an error (the peer is gone either way).
     */
    int read(int conn, ByteBuffer into) {
        if (!into.hasRemaining()) {
            return 0;
        }
        try {
            MemorySegment at = MemorySegment.ofBuffer(into);
            long n = (long) RECV.invokeExact(state, conn, at, (long) into.remaining(), MSG_DONTWAIT);
            if (n < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                return errno == EAGAIN || errno == EINTR ? 0 : -1;
            }
            if (n == 0) {
                return -1;
            }
            into.position(into.position() + (int) n);
            return (int) n;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Writes what it can of {@code from} (a direct buffer) from its position: the bytes written, 0 when full, -1 when the peer is gone. */
    int write(int conn, ByteBuffer from) {
        try {
            MemorySegment at = MemorySegment.ofBuffer(from);
            long n = (long) SEND.invokeExact(state, conn, at, (long) from.remaining(), MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                return errno == EAGAIN || errno == EINTR ? 0 : -1;
            }
            from.position(from.position() + (int) n);
            return (int) n;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Polls the listening socket (slot 0 of the result) and {@code count} connections
     * ({@code conns[0..count)}, slots 1..count) without waiting; returns how many are ready, and
     * {@link #ready(int)} says which. The poll set is reused (grown only when more are asked).
     */
    int poll(int[] conns, int count) throws IOException {
        if (count + 1 > pollCapacity) {
            pollCapacity = Math.max(16, Integer.highestOneBit(count + 1) << 1);
            pollFds = arena.allocate(8L * pollCapacity, 4);
        }
        pollFds.set(JAVA_INT, 0, fd);
        pollFds.set(JAVA_SHORT, 4, POLLIN);
        pollFds.set(JAVA_SHORT, 6, (short) 0);
        for (int i = 0; i < count; i++) {
            long at = 8L * (i + 1);
            pollFds.set(JAVA_INT, at, conns[i]);
            pollFds.set(JAVA_SHORT, at + 4, POLLIN);
            pollFds.set(JAVA_SHORT, at + 6, (short) 0);
        }
        try {
            int n = (int) POLL.invokeExact(state, pollFds, (long) (count + 1), 0);
            if (n < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                if (errno == EINTR) {
                    return 0;
                }
                throw new IOException("poll: " + describe(errno));
            }
            return n;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** After {@link #poll}: whether slot {@code slot} (0 the listener, i + 1 connection i) has something to read or has hung up. */
    boolean ready(int slot) {
        return pollFds.get(JAVA_SHORT, 8L * slot + 6) != 0;
    }

    /** Closes connection {@code conn}. */
    void closeConnection(int conn) {
        closeFd(conn);
    }

    /** Stops listening and removes the socket file. */
    @Override
    public void close() throws IOException {
        closeFd(fd);
        arena.close();
        Files.deleteIfExists(path);
    }

    private static void closeFd(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void check(int rc, MemorySegment st, String what) throws IOException {
        if (rc < 0) {
            throw new IOException(what + ": " + describe((int) ERRNO.get(st, 0L)));
        }
    }

    /** "errno N (its meaning)", as strerror says it. */
    static String describe(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return "errno " + errno + " (" + s.reinterpret(256).getString(0) + ")";
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    private static MethodHandle downcall(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name)), d, ERRNO_CAPTURE);
    }
}
