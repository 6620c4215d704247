package io.srdnic.verbs.attach;

import io.srdnic.ffm.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A client's end of the dataplane's control socket, blocking, through libc: what Java's
 * {@code SocketChannel} cannot do is receive a file descriptor (SCM_RIGHTS), and OPEN's reply
 * carries the one of the client's shared memory. Every read is a recvmsg that takes a descriptor
 * if one came with the bytes ({@link #takeReceivedFd}); one the caller did not ask for is closed
 * at once. One thread reads, any thread writes (writes are serialized here); {@link #close} from
 * any thread wakes a blocked reader (shutdown) before the descriptor is closed.
 */
public final class ControlSocket implements AutoCloseable {
    private static final int BUFFER_BYTES = 64 << 10;

    private final int fd;
    private final Arena arena = Arena.ofAuto(); // freed by the GC once no reader can be inside the buffers
    private final MemorySegment readBuffer = arena.allocate(BUFFER_BYTES);
    private final MemorySegment writeBuffer = arena.allocate(BUFFER_BYTES);
    private final MemorySegment pollFd = arena.allocate(8, 4);
    private final int[] received = {-1};
    /** How long {@link #read} waits for bytes before it returns 0; -1: for ever. */
    private volatile int readTimeoutMillis = -1;
    private int receivedFd = -1;
    private volatile boolean closed;

    private ControlSocket(int fd) {
        this.fd = fd;
    }

    /** Connects to the unix socket {@code path}; the IOException names the errno. */
    public static ControlSocket connect(Path path) throws IOException {
        byte[] name = path.toString().getBytes(StandardCharsets.UTF_8);
        if (name.length >= 108) {
            throw new IOException(path + " is too long for a unix socket path (" + name.length + " bytes, at most 107)");
        }
        int fd = Libc.socket(Libc.AF_UNIX, Libc.SOCK_STREAM | Libc.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw Libc.failure("socket(AF_UNIX)");
        }
        try (Arena a = Arena.ofConfined()) {
            if (Libc.connect(fd, Libc.unixAddress(a, name), Libc.unixAddressLength(name)) < 0) {
                IOException e = Libc.failure("connect");
                Libc.close(fd);
                throw e;
            }
        }
        return new ControlSocket(fd);
    }

    /** Makes {@link #read} return 0 when nothing came for {@code millis} (a reader with a deadline of its own); -1 waits for ever. */
    public void readTimeout(int millis) {
        readTimeoutMillis = millis;
    }

    /**
     * Reads what comes (blocking) into {@code into} from its position: the bytes read, -1 at end of
     * stream, 0 when a {@link #readTimeout} passed with nothing.
     */
    public int read(ByteBuffer into) throws IOException {
        if (closed) {
            return -1;
        }
        int timeout = readTimeoutMillis;
        if (timeout >= 0) {
            pollFd.set(ValueLayout.JAVA_INT, 0, fd);
            pollFd.set(ValueLayout.JAVA_SHORT, 4, Libc.POLLIN);
            pollFd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
            int ready = Libc.poll(pollFd, 1, timeout);
            if (ready == 0 || (ready < 0 && Libc.errno() == Libc.EINTR)) {
                return 0;
            }
        }
        int want = Math.min(into.remaining(), BUFFER_BYTES);
        long n;
        do {
            n = Libc.recvWithFd(fd, readBuffer, want, 0, received);
        } while (n < 0 && Libc.errno() == Libc.EINTR);
        if (received[0] >= 0) {
            if (receivedFd < 0) {
                receivedFd = received[0];
            } else {
                Libc.close(received[0]); // one descriptor is all OPEN passes
            }
        }
        if (n < 0) {
            if (closed) {
                return -1;
            }
            throw Libc.failure("recvmsg on the control socket");
        }
        if (n == 0) {
            return -1;
        }
        into.put(readBuffer.asSlice(0, n).asByteBuffer());
        return (int) n;
    }

    /** Writes all of {@code from} (blocking); the IOException names the errno (EPIPE: the dataplane closed it). */
    public synchronized int write(ByteBuffer from) throws IOException {
        int total = 0;
        while (from.hasRemaining()) {
            int chunk = Math.min(from.remaining(), BUFFER_BYTES);
            MemorySegment.copy(MemorySegment.ofBuffer(from), 0, writeBuffer, 0, chunk);
            long n = Libc.send(fd, writeBuffer, chunk, Libc.MSG_NOSIGNAL);
            if (n < 0) {
                if (Libc.errno() == Libc.EINTR) {
                    continue;
                }
                throw Libc.failure("send on the control socket");
            }
            from.position(from.position() + (int) n);
            total += (int) n;
        }
        return total;
    }

    /** The descriptor that came with the bytes read so far (the caller owns it now), or -1 when none did. */
    public int takeReceivedFd() {
        int f = receivedFd;
        receivedFd = -1;
        return f;
    }

    /** Closes the socket (declared as a channel's close is; it throws nothing). */
    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        Libc.shutdown(fd, Libc.SHUT_RDWR); // wakes a reader blocked in recvmsg; it sees end of stream
        Libc.close(fd);
        if (receivedFd >= 0) {
            Libc.close(receivedFd);
            receivedFd = -1;
        }
    }

    /**
     * Maps {@code bytes} of the shared memory descriptor {@code memoryFd} (as received) into
     * {@code arena} and closes the descriptor: the mapping holds the memory, the arena's close unmaps it.
     */
    public static MemorySegment mapAndClose(int memoryFd, long bytes, Arena arena) throws IOException {
        try {
            return Libc.mapShared(memoryFd, bytes, arena);
        } finally {
            Libc.close(memoryFd);
        }
    }
}
