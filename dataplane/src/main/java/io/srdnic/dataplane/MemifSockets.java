package io.srdnic.dataplane;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * memif ports' sockets as files in the run directory rather than in the abstract namespace.
 * DPDK 22.11's memif makes its socket abstract by default ({@code socket-abstract=yes}): an
 * abstract unix socket has no file and so no permissions, and any local user can connect to it
 * and be the port's peer. A dataplane's memif spec without {@code socket-abstract=} gets
 * {@code socket-abstract=no}, and one without {@code socket=} gets {@code DIR/<device>.sock};
 * a spec that says either keeps what it says. Once the ports are open, a server's socket file is
 * given mode 0660 and the control socket's group explicitly. memif's own {@code secret=} devarg
 * (a string both ends must give, up to 24 bytes) is a second check, not a substitute: it crosses
 * the socket in clear.
 */
final class MemifSockets {
    private static final System.Logger LOG = System.getLogger(MemifSockets.class.getName());
    private MemifSockets() {
    }

    /** {@code spec} with the dataplane's defaults when it is a memif device; any other spec as given. */
    static String withDefaults(String spec, Path dir) {
        if (!spec.startsWith("net_memif")) {
            return spec;
        }
        Map<String, String> args = args(spec);
        StringBuilder sb = new StringBuilder(spec);
        if (!args.containsKey("socket")) {
            String device = spec.split(",", 2)[0];
            sb.append(",socket=").append(dir.toAbsolutePath().resolve(device + ".sock"));
        }
        if (!args.containsKey("socket-abstract")) {
            sb.append(",socket-abstract=no");
        }
        return sb.toString();
    }

    /** The socket files of the memif servers among {@code specs} (after {@link #withDefaults}): abstract ones have none. */
    static List<Path> serverSocketFiles(List<String> specs) {
        List<Path> out = new ArrayList<>();
        for (String spec : specs) {
            if (!spec.startsWith("net_memif")) {
                continue;
            }
            Map<String, String> a = args(spec);
            if ("server".equals(a.get("role")) && "no".equals(a.get("socket-abstract")) && a.containsKey("socket")) {
                out.add(Path.of(a.get("socket")));
            }
        }
        return out;
    }

    /**
     * Removes the socket file of each memif server among {@code specs} that nothing listens on any
     * more (left by a dataplane killed before it could unlink it: DPDK's memif binds without
     * unlinking first, so the port would not start). A socket that answers is left alone: it is
     * another process's, and the port's start will say so.
     */
    static void removeStale(List<String> specs) throws IOException {
        for (Path socket : serverSocketFiles(specs)) {
            if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(socket)) {
                continue;
            }
            try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                probe.connect(UnixDomainSocketAddress.of(socket));
            } catch (ConnectException refused) {
                Files.deleteIfExists(socket);
                LOG.log(System.Logger.Level.INFO, "removed the memif socket {0}, on which nothing listens any more", socket);
            }
        }
    }

    /** Mode 0660 and group {@code gid} (-1: leave it) for each server socket file: not a link, else refused. */
    static void secure(List<String> specs, int gid) throws IOException {
        for (Path socket : serverSocketFiles(specs)) {
            if (Files.isSymbolicLink(socket)) {
                throw new IllegalStateException("the memif socket " + socket + " is a symbolic link: refusing to change its mode");
            }
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw----"));
            if (gid >= 0) {
                Files.setAttribute(socket, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            }
        }
    }

    private static Map<String, String> args(String spec) {
        Map<String, String> m = new LinkedHashMap<>();
        String[] parts = spec.split(",");
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            m.put(eq < 0 ? parts[i] : parts[i].substring(0, eq), eq < 0 ? "" : parts[i].substring(eq + 1));
        }
        return m;
    }
}
