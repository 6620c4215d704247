package io.srdnic.dataplane.attach;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.srdnic.ffm.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
final class UnixListener implements AutoCloseable {
    private static final int SUN_PATH_BYTES = 108;
    private static final int BACKLOG = 128;

    /** A connected peer as the kernel recorded it when it connected. */
    record Peer(int fd, int pid, int uid, int gid) {
    }

    private final Path path;
    private final int fd;
    private final Arena arena = Arena.ofShared(); // made on one thread, run on the lcore's in tests and benches
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
            throw new IOException("the socket path " + path + " is " + name.length + " bytes: a unix socket's is at most "
                    + (SUN_PATH_BYTES - 1)
                + " (choose a shorter --dir)");
        }
        int fd = Libc.socket(Libc.AF_UNIX, Libc.SOCK_STREAM | Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw Libc.failure("socket(AF_UNIX)");
        }
        try (Arena a = Arena.ofConfined()) {
            if (Libc.bind(fd, Libc.unixAddress(a, name), Libc.unixAddressLength(name)) < 0) {
                throw Libc.failure("bind " + path);
            }
            // chmod by path: a socket cannot be opened to fchmod it, and Linux has no chmod that refuses a link;
            // bind just made this inode in a directory only the dataplane's uid can write.
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
            if (gid >= 0) {
                Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            }
            if (Libc.listen(fd, BACKLOG) < 0) {
                throw Libc.failure("listen on " + path);
            }
            return new UnixListener(path, fd);
        } catch (IOException | RuntimeException e) {
            closeFd(fd);
            throw e;
        }
    }

    Path path() {
        return path;
    }

    /** The next waiting connection with its credentials, or null when none waits (EAGAIN). */
    Peer accept() throws IOException {
        int c = Libc.accept4(fd, Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC);
        if (c < 0) {
            int errno = Libc.errno();
            if (errno == Libc.EAGAIN || errno == Libc.EINTR) {
                return null;
            }
            throw new IOException("accept on " + path + ": " + Libc.describe(errno));
        }
        credLength.set(JAVA_INT, 0, 12);
        if (Libc.getsockopt(c, Libc.SOL_SOCKET, Libc.SO_PEERCRED, cred, credLength) < 0) {
            int errno = Libc.errno();
            closeFd(c);
            throw new IOException("SO_PEERCRED of a new connection: " + Libc.describe(errno));
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
        long n = Libc.recv(conn, MemorySegment.ofBuffer(into), into.remaining(), Libc.MSG_DONTWAIT);
        if (n < 0) {
            return wouldBlock() ? 0 : -1;
        }
        if (n == 0) {
            return -1;
        }
        into.position(into.position() + (int) n);
        return (int) n;
    }

    private static boolean wouldBlock() {
        int errno = Libc.errno();
        return errno == Libc.EAGAIN || errno == Libc.EINTR;
    }

    /** Writes what it can of {@code from} (a direct buffer) from its position: the bytes written, 0 when full, -1 when the peer is gone. */
    int write(int conn, ByteBuffer from) {
        long n = Libc.send(conn, MemorySegment.ofBuffer(from), from.remaining(), Libc.MSG_DONTWAIT | Libc.MSG_NOSIGNAL);
        if (n < 0) {
            return wouldBlock() ? 0 : -1;
        }
        from.position(from.position() + (int) n);
        return (int) n;
    }

    /**
     * As {@link #write}, with descriptor {@code passFd} passed along (SCM_RIGHTS) with the first byte
     * written: the peer receives its own descriptor of the same file. 0 (nothing written, nothing
     * passed) when the socket is full.
     */
    int writeWithFd(int conn, ByteBuffer from, int passFd) {
        long n = Libc.sendWithFd(conn, MemorySegment.ofBuffer(from), from.remaining(), passFd, Libc.MSG_DONTWAIT | Libc.MSG_NOSIGNAL);
        if (n < 0) {
            return wouldBlock() ? 0 : -1;
        }
        from.position(from.position() + (int) n);
        return (int) n;
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
        pollFds.set(JAVA_SHORT, 4, Libc.POLLIN);
        pollFds.set(JAVA_SHORT, 6, (short) 0);
        for (int i = 0; i < count; i++) {
            long at = 8L * (i + 1);
            pollFds.set(JAVA_INT, at, conns[i]);
            pollFds.set(JAVA_SHORT, at + 4, Libc.POLLIN);
            pollFds.set(JAVA_SHORT, at + 6, (short) 0);
        }
        int n = Libc.poll(pollFds, count + 1, 0);
        if (n < 0) {
            int errno = Libc.errno();
            if (errno == Libc.EINTR) {
                return 0;
            }
            throw new IOException("poll: " + Libc.describe(errno));
        }
        return n;
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
        Libc.close(fd);
    }
}
