package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The libc calls srdnic makes outside DPDK, in one place, through FFM: files (open without
 * following links, fallocate, lseek, flock), shared memory (memfd_create and its seals, mmap,
 * munmap, madvise), unix and packet sockets (with SCM_RIGHTS to pass a descriptor), poll, setns.
 * Each call returns what libc returns; on failure {@link #errno()} is the errno of this thread's
 * last call, captured by the JVM right after it (no other code can clobber it in between). The
 * capture buffer and the scratch {@code msghdr} are per thread and reused: no call here allocates
 * an arena, so a call made per request (TRIM, SEEK_DATA) costs no allocation.
 * Constants are Linux's generic ABI, which x86-64 and aarch64 share, except where noted
 * ({@code O_NOFOLLOW}, {@code O_DIRECTORY}: chosen by {@code os.arch}).
 */
@SuppressWarnings("restricted") // native access is granted at launch: --enable-native-access=ALL-UNNAMED
public final class Libc {
    /** Whether this is aarch64, where a few open(2) flags have other values than on x86-64. */
    public static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));

    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0x40;
    public static final int O_EXCL = 0x80;
    public static final int O_NONBLOCK = 0x800;
    public static final int O_DIRECTORY = AARCH64 ? 0x4000 : 0x10000;
    public static final int O_NOFOLLOW = AARCH64 ? 0x8000 : 0x20000;
    public static final int O_CLOEXEC = 0x80000;

    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 0x01;
    public static final int MAP_PRIVATE = 0x02;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MAP_NORESERVE = 0x4000;
    public static final int MADV_DONTNEED = 4;
    public static final int FALLOC_FL_KEEP_SIZE = 1;
    public static final int FALLOC_FL_PUNCH_HOLE = 2;
    public static final int FALLOC_FL_ZERO_RANGE = 0x10;
    public static final int SEEK_END = 2;
    public static final int SEEK_DATA = 3;
    public static final int SEEK_HOLE = 4;
    public static final int MFD_CLOEXEC = 1;
    public static final int MFD_ALLOW_SEALING = 2;
    public static final int F_ADD_SEALS = 1033;
    public static final int F_SEAL_SEAL = 1;
    public static final int F_SEAL_SHRINK = 2;
    public static final int F_SEAL_GROW = 4;
    public static final int LOCK_EX = 2;
    public static final int LOCK_NB = 4;

    public static final int AF_UNIX = 1;
    public static final int AF_PACKET = 17;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_RAW = 3;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int SOL_SOCKET = 1;
    public static final int SO_PEERCRED = 17;
    public static final int SCM_RIGHTS = 1;
    public static final int MSG_DONTWAIT = 0x40;
    public static final int MSG_NOSIGNAL = 0x4000;
    public static final int MSG_CMSG_CLOEXEC = 0x40000000;
    public static final int SHUT_RDWR = 2;
    public static final short POLLIN = 0x1;
    public static final short POLLERR = 0x8;
    public static final short POLLHUP = 0x10;
    public static final int CLONE_NEWNET = 0x4000_0000;

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int ENXIO = 6;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int EWOULDBLOCK = EAGAIN;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EEXIST = 17;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int EROFS = 30;
    public static final int EPIPE = 32;
    public static final int ENAMETOOLONG = 36;
    public static final int ENOTEMPTY = 39;
    public static final int ELOOP = 40;
    public static final int EOPNOTSUPP = 95;
    public static final int ECONNREFUSED = 111;
    public static final int EDQUOT = 122;

    /** errno numbers to their C names, for messages an operator can look up ({@link #describe}). */
    private static final String[] NAMES = new String[134];

    static {
        String[] pairs = {"1 EPERM", "2 ENOENT", "3 ESRCH", "4 EINTR", "5 EIO", "6 ENXIO", "7 E2BIG", "9 EBADF", "10 ECHILD",
            "11 EAGAIN", "12 ENOMEM", "13 EACCES", "14 EFAULT", "16 EBUSY", "17 EEXIST", "18 EXDEV", "19 ENODEV", "20 ENOTDIR",
            "21 EISDIR", "22 EINVAL", "23 ENFILE", "24 EMFILE", "26 ETXTBSY", "27 EFBIG", "28 ENOSPC", "29 ESPIPE", "30 EROFS",
            "31 EMLINK", "32 EPIPE", "36 ENAMETOOLONG", "38 ENOSYS", "39 ENOTEMPTY", "40 ELOOP", "61 ENODATA", "75 EOVERFLOW",
            "88 ENOTSOCK", "90 EMSGSIZE", "95 EOPNOTSUPP", "97 EAFNOSUPPORT", "98 EADDRINUSE", "99 EADDRNOTAVAIL", "104 ECONNRESET",
            "105 ENOBUFS", "107 ENOTCONN", "110 ETIMEDOUT", "111 ECONNREFUSED", "122 EDQUOT"};
        for (String p : pairs) {
            int space = p.indexOf(' ');
            NAMES[Integer.parseInt(p.substring(0, space))] = p.substring(space + 1);
        }
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");

    /** sizeof(struct msghdr), struct iovec, and a cmsghdr carrying one int (CMSG_SPACE(4)) on LP64 Linux. */
    private static final long MSGHDR_BYTES = 56;
    private static final long IOVEC_BYTES = 16;
    private static final long CMSG_ONE_FD_BYTES = 24;
    private static final long CMSG_LEN_ONE_FD = 20;

    /** One thread's reused native scratch: the errno capture, a msghdr with its iovec and control buffer, small out-params. */
    private static final class Scratch {
        final MemorySegment state;
        final MemorySegment msg;
        final MemorySegment iov;
        final MemorySegment control;
        final MemorySegment ints;

        Scratch() {
            Arena arena = Arena.ofAuto(); // per thread, freed with it
            state = arena.allocate(CALL_STATE);
            msg = arena.allocate(MSGHDR_BYTES, 8);
            iov = arena.allocate(IOVEC_BYTES, 8);
            control = arena.allocate(CMSG_ONE_FD_BYTES, 8);
            ints = arena.allocate(16, 8);
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private static final MethodHandle OPEN = downcall("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
        Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FTRUNCATE = downcall("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle FALLOCATE = downcall("fallocate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle LSEEK = downcall("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle PWRITE = downcall("pwrite", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG, JAVA_LONG));
    private static final MethodHandle FSYNC = downcall("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FCHMOD = downcall("fchmod", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle FLOCK = downcall("flock", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle FCNTL = downcall("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
        Linker.Option.firstVariadicArg(2));
    private static final MethodHandle MEMFD_CREATE = downcall("memfd_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle MMAP = downcall("mmap", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = downcall("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle MADVISE = downcall("madvise", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle SOCKET = downcall("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = downcall("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CONNECT = downcall("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle LISTEN = downcall("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle ACCEPT4 = downcall("accept4", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKOPT = downcall("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle RECV = downcall("recv", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle SEND = downcall("send", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle SENDMSG = downcall("sendmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle RECVMSG = downcall("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle SHUTDOWN = downcall("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle POLL = downcall("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle SETNS = downcall("setns", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle IF_NAMETOINDEX = downcall("if_nametoindex", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(LINKER.defaultLookup().find("strerror").orElseThrow(),
        FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Libc() {
    }

    private static MethodHandle downcall(String name, FunctionDescriptor d, Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = CAPTURE;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name)),
            d, options);
    }

    private static MemorySegment state() {
        return SCRATCH.get().state;
    }

    /** The errno of this thread's last call through this class. */
    public static int errno() {
        return (int) ERRNO.get(state(), 0L);
    }

    private static IllegalStateException broken(String call, Throwable t) {
        return new IllegalStateException("calling " + call + " failed", t);
    }

    /** The C name of {@code errno} ("ENOSPC"), or "errno N" for one this class does not name. */
    public static String errnoName(int errno) {
        String n = errno > 0 && errno < NAMES.length ? NAMES[errno] : null;
        return n != null ? n : "errno " + errno;
    }

    /** strerror's text for {@code errno} ("No space left on device"). */
    public static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "unknown error";
        }
    }

    /** The one way srdnic writes an errno in a message: {@code ENOSPC (No space left on device)}. */
    public static String describe(int errno) {
        return errnoName(errno) + " (" + strerror(errno) + ")";
    }

    /** An IOException saying "{@code what}: ENOSPC (No space left on device)" for this thread's last errno. */
    public static IOException failure(String what) {
        return new IOException(what + ": " + describe(errno()));
    }

    // ---- files

    /** open(2) of {@code path} (a string: control path only, it allocates). */
    public static int open(String path, int flags, int mode) {
        try (Arena a = Arena.ofConfined()) {
            return (int) OPEN.invokeExact(state(), a.allocateFrom(path), flags, mode);
        } catch (Throwable t) {
            throw broken("open", t);
        }
    }

    public static int close(int fd) {
        try {
            return (int) CLOSE.invokeExact(state(), fd);
        } catch (Throwable t) {
            throw broken("close", t);
        }
    }

    public static int ftruncate(int fd, long length) {
        try {
            return (int) FTRUNCATE.invokeExact(state(), fd, length);
        } catch (Throwable t) {
            throw broken("ftruncate", t);
        }
    }

    public static int fallocate(int fd, int mode, long offset, long length) {
        try {
            return (int) FALLOCATE.invokeExact(state(), fd, mode, offset, length);
        } catch (Throwable t) {
            throw broken("fallocate", t);
        }
    }

    public static long lseek(int fd, long offset, int whence) {
        try {
            return (long) LSEEK.invokeExact(state(), fd, offset, whence);
        } catch (Throwable t) {
            throw broken("lseek", t);
        }
    }

    public static long pwrite(int fd, MemorySegment from, long bytes, long offset) {
        try {
            return (long) PWRITE.invokeExact(state(), fd, from, bytes, offset);
        } catch (Throwable t) {
            throw broken("pwrite", t);
        }
    }

    public static int fsync(int fd) {
        try {
            return (int) FSYNC.invokeExact(state(), fd);
        } catch (Throwable t) {
            throw broken("fsync", t);
        }
    }

    public static int fchmod(int fd, int mode) {
        try {
            return (int) FCHMOD.invokeExact(state(), fd, mode);
        } catch (Throwable t) {
            throw broken("fchmod", t);
        }
    }

    public static int flock(int fd, int operation) {
        try {
            return (int) FLOCK.invokeExact(state(), fd, operation);
        } catch (Throwable t) {
            throw broken("flock", t);
        }
    }

    public static int fcntl(int fd, int cmd, int arg) {
        try {
            return (int) FCNTL.invokeExact(state(), fd, cmd, arg);
        } catch (Throwable t) {
            throw broken("fcntl", t);
        }
    }

    // ---- memory

    /** memfd_create(2) named {@code name} (shown in /proc/PID/fd and /proc/PID/maps only). */
    public static int memfdCreate(String name, int flags) {
        try (Arena a = Arena.ofConfined()) {
            return (int) MEMFD_CREATE.invokeExact(state(), a.allocateFrom(name), flags);
        } catch (Throwable t) {
            throw broken("memfd_create", t);
        }
    }

    /** mmap(2); returns the address, {@code MAP_FAILED} being address -1 ({@link #mapFailed}). */
    public static MemorySegment mmap(MemorySegment at, long bytes, int prot, int flags, int fd, long offset) {
        try {
            return (MemorySegment) MMAP.invokeExact(state(), at, bytes, prot, flags, fd, offset);
        } catch (Throwable t) {
            throw broken("mmap", t);
        }
    }

    /** Whether {@code address} from {@link #mmap} is MAP_FAILED. */
    public static boolean mapFailed(MemorySegment address) {
        return address.address() == -1L;
    }

    public static int munmap(MemorySegment at, long bytes) {
        try {
            return (int) MUNMAP.invokeExact(state(), at, bytes);
        } catch (Throwable t) {
            throw broken("munmap", t);
        }
    }

    public static int madvise(MemorySegment at, long bytes, int advice) {
        try {
            return (int) MADVISE.invokeExact(state(), at, bytes, advice);
        } catch (Throwable t) {
            throw broken("madvise", t);
        }
    }

    /**
     * Maps {@code bytes} of {@code fd} shared, read-write, as a segment of {@code arena}: closing the
     * arena unmaps it (munmap at once, no GC involved). Throws naming the errno when mmap fails.
     */
    public static MemorySegment mapShared(int fd, long bytes, Arena arena) throws IOException {
        MemorySegment at = mmap(MemorySegment.NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mapFailed(at)) {
            throw failure("mmap of " + bytes + " bytes");
        }
        return at.reinterpret(bytes, arena, s -> munmap(s, bytes));
    }

    // ---- sockets

    public static int socket(int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(state(), domain, type, protocol);
        } catch (Throwable t) {
            throw broken("socket", t);
        }
    }

    public static int bind(int fd, MemorySegment address, int length) {
        try {
            return (int) BIND.invokeExact(state(), fd, address, length);
        } catch (Throwable t) {
            throw broken("bind", t);
        }
    }

    public static int connect(int fd, MemorySegment address, int length) {
        try {
            return (int) CONNECT.invokeExact(state(), fd, address, length);
        } catch (Throwable t) {
            throw broken("connect", t);
        }
    }

    public static int listen(int fd, int backlog) {
        try {
            return (int) LISTEN.invokeExact(state(), fd, backlog);
        } catch (Throwable t) {
            throw broken("listen", t);
        }
    }

    public static int accept4(int fd, int flags) {
        try {
            return (int) ACCEPT4.invokeExact(state(), fd, MemorySegment.NULL, MemorySegment.NULL, flags);
        } catch (Throwable t) {
            throw broken("accept4", t);
        }
    }

    public static int getsockopt(int fd, int level, int name, MemorySegment value, MemorySegment length) {
        try {
            return (int) GETSOCKOPT.invokeExact(state(), fd, level, name, value, length);
        } catch (Throwable t) {
            throw broken("getsockopt", t);
        }
    }

    public static long recv(int fd, MemorySegment into, long bytes, int flags) {
        try {
            return (long) RECV.invokeExact(state(), fd, into, bytes, flags);
        } catch (Throwable t) {
            throw broken("recv", t);
        }
    }

    public static long send(int fd, MemorySegment from, long bytes, int flags) {
        try {
            return (long) SEND.invokeExact(state(), fd, from, bytes, flags);
        } catch (Throwable t) {
            throw broken("send", t);
        }
    }

    public static int shutdown(int fd, int how) {
        try {
            return (int) SHUTDOWN.invokeExact(state(), fd, how);
        } catch (Throwable t) {
            throw broken("shutdown", t);
        }
    }

    public static int poll(MemorySegment fds, long count, int timeoutMillis) {
        try {
            return (int) POLL.invokeExact(state(), fds, count, timeoutMillis);
        } catch (Throwable t) {
            throw broken("poll", t);
        }
    }

    public static int setns(int fd, int type) {
        try {
            return (int) SETNS.invokeExact(state(), fd, type);
        } catch (Throwable t) {
            throw broken("setns", t);
        }
    }

    public static int ifNametoindex(String name) {
        try (Arena a = Arena.ofConfined()) {
            return (int) IF_NAMETOINDEX.invokeExact(state(), a.allocateFrom(name));
        } catch (Throwable t) {
            throw broken("if_nametoindex", t);
        }
    }

    /**
     * sendmsg(2) of {@code bytes} from {@code from} with descriptor {@code passFd} as SCM_RIGHTS: the
     * receiver gets its own descriptor of the same open file with the first of these bytes. Returns
     * the bytes sent (the descriptor went with them when it is positive) or -1 (see {@link #errno()}).
     */
    public static long sendWithFd(int socket, MemorySegment from, long bytes, int passFd, int flags) {
        Scratch s = SCRATCH.get();
        s.iov.set(ADDRESS, 0, from);
        s.iov.set(JAVA_LONG, 8, bytes);
        s.control.fill((byte) 0);
        s.control.set(JAVA_LONG, 0, CMSG_LEN_ONE_FD); // cmsg_len
        s.control.set(JAVA_INT, 8, SOL_SOCKET);      // cmsg_level
        s.control.set(JAVA_INT, 12, SCM_RIGHTS);     // cmsg_type
        s.control.set(JAVA_INT, 16, passFd);
        fillMsg(s, CMSG_ONE_FD_BYTES);
        try {
            return (long) SENDMSG.invokeExact(s.state, socket, s.msg, flags);
        } catch (Throwable t) {
            throw broken("sendmsg", t);
        }
    }

    /**
     * recvmsg(2) of up to {@code bytes} into {@code into}, taking a descriptor passed with them
     * (SCM_RIGHTS, made close-on-exec): returns the bytes read (0 at end of stream, -1 on error) and
     * puts the received descriptor, or -1 when none came, in {@code fdOut[0]}. Any more descriptors
     * than one, which srdnic never sends, would be lost: the control buffer holds one.
     */
    public static long recvWithFd(int socket, MemorySegment into, long bytes, int flags, int[] fdOut) {
        Scratch s = SCRATCH.get();
        s.iov.set(ADDRESS, 0, into);
        s.iov.set(JAVA_LONG, 8, bytes);
        s.control.fill((byte) 0);
        fillMsg(s, CMSG_ONE_FD_BYTES);
        fdOut[0] = -1;
        long n;
        try {
            n = (long) RECVMSG.invokeExact(s.state, socket, s.msg, flags | MSG_CMSG_CLOEXEC);
        } catch (Throwable t) {
            throw broken("recvmsg", t);
        }
        long controlLength = s.msg.get(JAVA_LONG, 40);
        if (n >= 0 && controlLength >= CMSG_LEN_ONE_FD && s.control.get(JAVA_INT, 8) == SOL_SOCKET
            && s.control.get(JAVA_INT, 12) == SCM_RIGHTS) {
            fdOut[0] = s.control.get(JAVA_INT, 16);
        }
        return n;
    }

    /** struct msghdr { name, namelen, iov, iovlen, control, controllen, flags } with one iovec and the control buffer. */
    private static void fillMsg(Scratch s, long controlBytes) {
        s.msg.fill((byte) 0);
        s.msg.set(ADDRESS, 16, s.iov);
        s.msg.set(JAVA_LONG, 24, 1L);
        s.msg.set(ADDRESS, 32, s.control);
        s.msg.set(JAVA_LONG, 40, controlBytes);
    }

    /** A {@code struct sockaddr_un} for {@code path} in {@code arena}; its length is {@link #unixAddressLength}. */
    public static MemorySegment unixAddress(Arena arena, byte[] path) {
        MemorySegment a = arena.allocate(2 + 108, 2);
        a.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(path, 0, a, JAVA_BYTE, 2, path.length);
        return a;
    }

    public static int unixAddressLength(byte[] path) {
        return 2 + path.length + 1;
    }

    /** Scratch ints of this thread (4 of them), for out-parameters such as getsockopt's length. */
    public static MemorySegment scratchInts() {
        return SCRATCH.get().ints;
    }
}
