package io.srdnic.cli.adversary;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.srdnic.ffm.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * A raw AF_PACKET socket bound to one interface of a network namespace, that sends whole Ethernet
 * frames out of it: the attacker on the far end of the victim's veth, whose frames reach the victim
 * the way its peer's do (through the kernel's veth and the XDP program into the AF_XDP socket).
 * <p>
 * The socket is made inside the namespace by the calling thread, which enters it with
 * {@code setns(2)} (a network namespace is per thread) and returns to its own at once: the socket
 * stays in the namespace it was made in. libc through FFM ({@link Libc}); root (CAP_SYS_ADMIN, CAP_NET_RAW) needed.
 * The socket is send-only (protocol 0: it receives nothing) and never blocks: a frame the kernel
 * cannot take now is refused.
 */
public final class RawPacketSocket implements FrameSink {
    private final String where;
    private final int fd;
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
        int own = Libc.open("/proc/thread-self/ns/net", Libc.O_RDONLY | Libc.O_CLOEXEC, 0);
        check(own, "open /proc/thread-self/ns/net");
        int target = Libc.open("/run/netns/" + namespace, Libc.O_RDONLY | Libc.O_CLOEXEC, 0);
        try {
            check(target, "open /run/netns/" + namespace + " (does the namespace exist?)");
            check(Libc.setns(target, Libc.CLONE_NEWNET), "setns into " + namespace + " (root needed)");
            int fd = -1;
            try (Arena a = Arena.ofConfined()) {
                int ifindex = Libc.ifNametoindex(iface);
                if (ifindex == 0) {
                    throw new IllegalStateException("no interface " + iface + " in network namespace " + namespace + ": "
                        + Libc.describe(Libc.errno()));
                }
                fd = Libc.socket(Libc.AF_PACKET, Libc.SOCK_RAW | Libc.SOCK_CLOEXEC, 0);
                check(fd, "socket(AF_PACKET, SOCK_RAW) (root or CAP_NET_RAW needed)");
                // struct sockaddr_ll: family, protocol (0: receive nothing), ifindex, hatype, pkttype, halen, addr[8].
                MemorySegment sll = a.allocate(20, 4);
                sll.set(JAVA_SHORT, 0, (short) Libc.AF_PACKET);
                sll.set(JAVA_INT.withOrder(ByteOrder.nativeOrder()), 4, ifindex);
                check(Libc.bind(fd, sll, 20), "bind to " + iface);
                return new RawPacketSocket(where, fd);
            } catch (RuntimeException | Error e) {
                if (fd >= 0) {
                    Libc.close(fd);
                }
                throw e;
            } finally {
                // Back to this thread's own namespace, whatever happened.
                if (Libc.setns(own, Libc.CLONE_NEWNET) != 0) {
                    throw new IllegalStateException("cannot return to this thread's network namespace: " + Libc.describe(Libc.errno()));
                }
            }
        } finally {
            if (target >= 0) {
                Libc.close(target);
            }
            Libc.close(own);
        }
    }

    @Override
    public boolean offer(MemorySegment frame, int length) {
        long n = Libc.send(fd, frame, length, Libc.MSG_DONTWAIT);
        if (n == length) {
            sent++;
            return true;
        }
        lastErrno = Libc.errno();
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
        return lastErrno == 0 ? null : Libc.describe(lastErrno);
    }

    @Override
    public String describe() {
        return "a raw AF_PACKET socket on " + where;
    }

    @Override
    public void close() {
        Libc.close(fd);
    }

    private static void check(int rc, String what) {
        if (rc < 0) {
            throw new IllegalStateException(what + " failed: " + Libc.describe(Libc.errno()));
        }
    }
}
