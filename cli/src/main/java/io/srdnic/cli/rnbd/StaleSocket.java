package io.srdnic.cli.rnbd;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A unix socket path a server is about to listen on, checked first: a socket file nobody listens
 * on (left by a process killed with SIGKILL, which removes nothing) is stale and is removed; a
 * socket something still listens on is refused with a message, and so is anything that is not a
 * socket (a regular file, a directory, a symbolic link: never followed). Whether anyone listens is
 * asked the only way that does not guess: connect, and see ECONNREFUSED. A listener of another
 * socket type (memif's SOCK_SEQPACKET, to this stream connect) answers EPROTOTYPE: alive too.
 */
public final class StaleSocket {
    private StaleSocket() {
    }

    /**
     * Makes {@code path} free to bind: removes it if stale; IllegalArgumentException if live or not
     * a socket. Returns whether it removed one.
     */
    public static boolean claim(Path path, String what) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return false; // nothing there
        }
        if (!a.isOther()) {
            throw new IllegalArgumentException(what + " " + path + " exists and is not a socket: remove it or choose another path");
        }
        if (listening(path)) {
            throw new IllegalArgumentException(what + " " + path + " is in use: a running server listens on it (stop it first, or choose"
                + " another path)");
        }
        try {
            Files.delete(path);
        } catch (IOException e) {
            throw new IllegalArgumentException(what + " " + path + " is stale (nobody listens) but cannot be removed: "
                    + e.getMessage(), e);
        }
        return true;
    }

    /** Whether a process accepts connections on the unix socket {@code path}. */
    static boolean listening(Path path) {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(path));
            return true;
        } catch (IOException e) {
            String m = String.valueOf(e.getMessage());
            return !m.contains("Connection refused") && !m.contains("No such file");
        }
    }
}
