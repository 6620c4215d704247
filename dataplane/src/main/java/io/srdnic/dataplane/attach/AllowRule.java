package io.srdnic.dataplane.attach;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who may attach, on numbers: the peer's uid and gid as the kernel recorded them when it connected
 * (SO_PEERCRED, {@link UnixListener}), never a user name (two names can share a uid, a name can be
 * renamed) nor who owns some file. A client is allowed when its uid is in {@code uids} or its
 * primary gid in {@code gids}. The default ({@link #ownUidOrRoot}) is the dataplane's own uid and root.
 */
public record AllowRule(Set<Integer> uids, Set<Integer> gids) {
    public AllowRule {
        uids = Set.copyOf(uids);
        gids = Set.copyOf(gids);
    }

    /** The dataplane's own effective uid and root (uid 0). */
    public static AllowRule ownUidOrRoot() {
        return of(Set.of(ownUid()), Set.of());
    }

    /** {@code uids} and {@code gids} as given, plus root (who can read any process's memory anyway). */
    public static AllowRule of(Set<Integer> uids, Set<Integer> gids) {
        Set<Integer> u = new TreeSet<>(uids);
        u.add(0);
        return new AllowRule(u, gids);
    }

    /** Nobody: for tests of the refusal. */
    public static AllowRule nobody() {
        return new AllowRule(Set.of(), Set.of());
    }

    public boolean allows(int uid, int gid) {
        return uids.contains(uid) || gids.contains(gid);
    }

    /** "uid 0, 1000; gid 27", for logs and the refusal's message. */
    public String description() {
        if (uids.isEmpty() && gids.isEmpty()) {
            return "nobody";
        }
        String s = uids.isEmpty() ? "" : "uid " + String.join(", ", new TreeSet<>(uids).stream().map(String::valueOf).toList());
        if (!gids.isEmpty()) {
            s += (s.isEmpty() ? "" : "; ") + "gid " + String.join(", ", new TreeSet<>(gids).stream().map(String::valueOf).toList());
        }
        return s;
    }

    /** This process's effective uid: the owner the kernel gives {@code /proc/self}. */
    public static int ownUid() {
        return procSelf("unix:uid");
    }

    /** This process's effective gid. */
    public static int ownGid() {
        return procSelf("unix:gid");
    }

    private static int procSelf(String attribute) {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), attribute);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + attribute + " of /proc/self: " + e.getMessage(), e);
        }
    }
}
