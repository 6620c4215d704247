package io.srdnic.cli.adversary;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A raw AF_PACKET socket bound to one interface of a network namespace, that sends whole Ethernet
 * frames out of it: the attacker on the far end of the victim's veth, whose frames reach the victim
 * the way its peer's do (through the kernel's veth and the XDP program into the AF_XDP socket).
 * <p>
 * The socket is made inside the namespace by the calling thread, which enters it with
 * {@code setns(2)} (a network namespace is per thread) and returns to its own at once: the socket
 * stays in the namespace it was made in. libc through FFM; root (CAP_SYS_ADMIN, CAP_NET_RAW) needed.
 * The socket is send-only (protocol 0: it receives nothing) and never blocks: a frame the kernel
 * cannot take now is refused.
 */
public final class RawPacketSocket implements FrameSink {
    private static final int AF_PACKET = 17;
    private static final int SOCK_RAW = 3;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int CLONE_NEWNET = 0x4000_0000;
    private static final int MSG_DONTWAIT = 0x40;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option ERRNO_CAPTURE = Linker.Option.captureCallState("errno");
    private static final MethodHandle OPEN = downcall("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT),
        ERRNO_CAPTURE, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle SETNS = downcall("setns", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), ERRNO_CAPTURE);
    private static final MethodHandle SOCKET = downcall("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), ERRNO_CAPTURE);
    private static final MethodHandle BIND = downcall("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), ERRNO_CAPTURE);
    private static final MethodHandle SEND = downcall("send", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), ERRNO_CAPTURE);
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle IF_NAMETOINDEX = downcall("if_nametoindex", FunctionDescriptor.of(JAVA_INT, ADDRESS), ERRNO_CAPTURE);
    private static final MethodHandle STRERROR = downcall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private final String where;
    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment callState = arena.allocate(CALL_STATE);
    private long sent;
    private long refused;
    private int lastErrno;

    private RawPacketSocket(String where, int fd) {
        this.where = where;
        this.fd = fd;
    }

    /** Opens a socket that sends out of {@code iface} in network namespace {@code namespace} (made by {@code ip netns add}). */
    public static RawPacketSocket open(String namespace, String iface) {
        String where = iface + " in network namespace " + namespace;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int own = (int) OPEN.invokeExact(state, a.allocateFrom("/proc/thread-self/ns/net"), O_RDONLY | O_CLOEXEC);
            check(own, state, "open /proc/thread-self/ns/net");
            int target = (int) OPEN.invokeExact(state, a.allocateFrom("/run/netns/" + namespace), O_RDONLY | O_CLOEXEC);
            try {
                check(target, state, "open /run/netns/" + namespace + " (does the namespace exist?)");
                check((int) SETNS.invokeExact(state, target, CLONE_NEWNET), state, "setns into " + namespace + " (root needed)");
                int fd = -1;
                try {
                    int ifindex = (int) IF_NAMETOINDEX.invokeExact(state, a.allocateFrom(iface));
                    if (ifindex == 0) {
                        throw new IllegalStateException("no interface " + iface + " in network namespace " + namespace + ": "
                            + strerror((int) ERRNO.get(state, 0L)));
                    }
                    fd = (int) SOCKET.invokeExact(state, AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
                    check(fd, state, "socket(AF_PACKET, SOCK_RAW) (root or CAP_NET_RAW needed)");
                    // struct sockaddr_ll: family, protocol (0: receive nothing), ifindex, hatype, pkttype, halen, addr[8].
                    MemorySegment sll = a.allocate(20, 4);
                    sll.set(JAVA_SHORT, 0, (short) AF_PACKET);
                    sll.set(JAVA_INT.withOrder(ByteOrder.nativeOrder()), 4, ifindex);
                    check((int) BIND.invokeExact(state, fd, sll, 20), state, "bind to " + iface);
                    return new RawPacketSocket(where, fd);
                } catch (Throwable t) {
                    if (fd >= 0) {
                        int ignored = (int) CLOSE.invokeExact(fd);
                    }
                    throw t;
                } finally {
                    // Back to this thread's own namespace, whatever happened.
                    int back = (int) SETNS.invokeExact(state, own, CLONE_NEWNET);
                    if (back != 0) {
                        throw new IllegalStateException("cannot return to this thread's network namespace: " + strerror((int) ERRNO.get(state, 0L)));
                    }
                }
            } finally {
                if (target >= 0) {
                    int ignored = (int) CLOSE.invokeExact(target);
                }
                int ignored = (int) CLOSE.invokeExact(own);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("raw socket on " + where + ": " + t, t);
        }
    }

    @Override
    public boolean offer(MemorySegment frame, int length) {
        long n;
        try {
            n = (long) SEND.invokeExact(callState, fd, frame, (long) length, MSG_DONTWAIT);
        } catch (Throwable t) {
            throw new IllegalStateException("send on the raw socket failed: " + t, t);
        }
        if (n == length) {
            sent++;
            return true;
        }
        lastErrno = (int) ERRNO.get(callState, 0L);
        refused++;
        return false;
    }

    @Override
    public long injected() {
        return sent;
    }

    /** Frames the kernel did not take (too long for the interface, no buffer room), and why the last one was not. */
    public long refused() {
        return refused;
    }

    public String lastError() {
        return lastErrno == 0 ? null : strerror(lastErrno);
    }

    @Override
    public String describe() {
        return "a raw AF_PACKET socket on " + where;
    }

    @Override
    public void close() {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            // closing a socket that is ours cannot fail in a way worth reporting
        }
        arena.close();
    }

    private static void check(int rc, MemorySegment state, String what) {
        if (rc < 0) {
            throw new IllegalStateException(what + " failed: " + strerror((int) ERRNO.get(state, 0L)));
        }
    }

    private static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0) + " (errno " + errno + ")";
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    private static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... options) {
        MemorySegment symbol = LIBC.find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
        return LINKER.downcallHandle(symbol, fd, options);
    }
}
