package io.srdnic.dataplane;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.ffm.Libc;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The dataplane's run directory ({@code --dir}, and each {@code lcore-k} in it), made or checked at
 * start as a system daemon's is: a directory itself (not a symbolic link to one), owned by the
 * dataplane's uid, writable by no one else. Anyone who could write in it could plant a link where
 * the dataplane will write its pid or counters file, or swap its control socket for their own; so
 * a directory that fails is refused with the reason, never repaired. Its parents up to / must be
 * root's or this uid's and writable by others only if sticky, or their writer could swap it after
 * the check. Made here: mode 0755 (the
 * control socket's own mode says who may connect), whatever the umask.
 */
final class RunDirectory {
    static final String MODE = "rwxr-xr-x";
    private static final int STICKY = 01000;

    private RunDirectory() {
    }

    /** Makes {@code dir} (and missing parents) or checks the one there; returns it. Throws with the reason when it cannot be used. */
    static Path prepare(Path dir) {
        try {
            if (Files.notExists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Path parent = dir.toAbsolutePath().getParent();
                for (Path p = parent; p != null; p = p.getParent()) {
                    if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(p)) {
                        if (!Files.isDirectory(p)) { // Java's createDirectories says EEXIST here; the kernel's word is ENOTDIR
                            throw new IllegalStateException("--dir " + dir + ": cannot make it: "
                                    + Libc.describe(Libc.ENOTDIR) + " at " + p);
                        }
                        refuseUnsafeAncestors(dir, p); // before making anything in it
                        break;
                    }
                }
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                try {
                    Files.createDirectory(dir);
                    Files.getFileAttributeView(dir, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .setPermissions(PosixFilePermissions.fromString(MODE));
                } catch (FileAlreadyExistsException raced) {
                    // made meanwhile: checked below like any other
                }
            }
            check(dir);
            return dir;
        } catch (IOException e) {
            throw new IllegalStateException("--dir " + dir + ": cannot make or check it: " + Errno.of(e) + " at " + failedAt(e, dir), e);
        }
    }

    private static String failedAt(IOException e, Path dir) {
        return e instanceof FileSystemException f && f.getFile() != null ? f.getFile() : dir.toString();
    }

    /** Refuses {@code dir} unless it is a directory (not a link) of this uid that group and others cannot write, under safe parents. */
    static void check(Path dir) throws IOException {
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            throw new IllegalStateException("--dir " + dir + " is a symbolic link (to " + Files.readSymbolicLink(dir)
                + "): give the directory itself, so that no one can redirect where the dataplane writes");
        }
        if (!a.isDirectory()) {
            throw new IllegalStateException("--dir " + dir + " is not a directory");
        }
        int owner = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int self = AllowRule.ownUid();
        if (owner != self) {
            throw new IllegalStateException("--dir " + dir + " is owned by uid " + owner + ", not by this dataplane's uid " + self
                + ": its owner could replace the files the dataplane writes there (chown " + self + " " + dir + ", or give another --dir)");
        }
        Set<PosixFilePermission> p = a.permissions();
        if (p.contains(PosixFilePermission.GROUP_WRITE) || p.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IllegalStateException("--dir " + dir + " has mode " + PosixFilePermissions.toString(p)
                + ": group or others may write in it, and so plant links where the dataplane writes its pid and counters files"
                + " or replace its control socket (chmod go-w " + dir + ")");
        }
        Path parent = dir.toAbsolutePath().normalize().getParent();
        if (parent != null) {
            refuseUnsafeAncestors(dir, parent);
        }
    }

    /**
     * Refuses {@code dir} unless {@code from} and every directory above it, both as named and along
     * its real path (a linked parent is checked where it leads, and the link where it lives), is
     * owned by root or this uid and writable by group or others only with the sticky bit (as /tmp):
     * whoever else may write in a parent can rename the run directory away after it is checked and
     * put their own in its place, and every later write by path would follow the swap.
     */
    private static void refuseUnsafeAncestors(Path dir, Path from) throws IOException {
        for (Path p = from.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
            refuseUnsafeParent(dir, p);
        }
        for (Path p = from.toRealPath(); p != null; p = p.getParent()) {
            refuseUnsafeParent(dir, p);
        }
    }

    private static void refuseUnsafeParent(Path dir, Path parent) throws IOException {
        Map<String, Object> a = Files.readAttributes(parent, "unix:mode,uid"); // where it leads: the directory entries live in
        int mode = (Integer) a.get("mode");
        int owner = (Integer) a.get("uid");
        int self = AllowRule.ownUid();
        boolean othersMayWrite = (mode & 0022) != 0 && (mode & STICKY) == 0;
        if ((owner != 0 && owner != self) || othersMayWrite) {
            String who = owner != 0 && owner != self ? "its owner, neither root nor this dataplane's uid " + self + ","
                : "group or others (no sticky bit)";
            throw new IllegalStateException("--dir " + dir + ": its parent " + parent + " (mode " + modeText(mode) + ", uid "
                    + owner + ") may be"
                + " written by " + who + " who could rename --dir away after it is checked and put their own in its place"
                + " (give a --dir whose parents only root or uid " + self + " can write, or chmod go-w or +t " + parent + ")");
        }
    }

    private static String modeText(int mode) {
        Set<PosixFilePermission> perms = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE: bit 8 down to bit 0
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (0400 >> i)) != 0) {
                perms.add(bits[i]);
            }
        }
        return PosixFilePermissions.toString(perms) + ((mode & STICKY) != 0 ? " sticky" : "");
    }
}
