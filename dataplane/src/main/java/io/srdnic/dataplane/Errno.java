package io.srdnic.dataplane;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.util.Map;

/**
 * The errno behind a file error, named and explained in one phrase ({@code errno 13 EACCES
 * (Permission denied)}): Java's file exceptions carry the path, and the reason only as the
 * exception's type or strerror's text, which an operator cannot look up. For the dataplane's
 * start-up errors about {@code --dir} and {@code --shm-dir}.
 */
final class Errno {
    private record Code(int number, String name, String meaning) {
        @Override
        public String toString() {
            return "errno " + number + " " + name + " (" + meaning + ")";
        }
    }

    private static final Code ENOENT = new Code(2, "ENOENT", "No such file or directory");
    private static final Code EACCES = new Code(13, "EACCES", "Permission denied");
    private static final Code EEXIST = new Code(17, "EEXIST", "File exists");
    private static final Code ENOTDIR = new Code(20, "ENOTDIR", "Not a directory");
    private static final Code ENOTEMPTY = new Code(39, "ENOTEMPTY", "Directory not empty");
    private static final Code EINVAL = new Code(22, "EINVAL", "Invalid argument");
    /** strerror's text, as the JDK puts it in a FileSystemException's reason, to its code. */
    private static final Map<String, Code> BY_TEXT = Map.ofEntries(
        Map.entry("Operation not permitted", new Code(1, "EPERM", "Operation not permitted")),
        Map.entry(ENOENT.meaning(), ENOENT),
        Map.entry(EACCES.meaning(), EACCES),
        Map.entry(EEXIST.meaning(), EEXIST),
        Map.entry(ENOTDIR.meaning(), ENOTDIR),
        Map.entry("Is a directory", new Code(21, "EISDIR", "Is a directory")),
        Map.entry(EINVAL.meaning(), EINVAL),
        Map.entry("No space left on device", new Code(28, "ENOSPC", "No space left on device")),
        Map.entry("Read-only file system", new Code(30, "EROFS", "Read-only file system")),
        Map.entry("File name too long", new Code(36, "ENAMETOOLONG", "File name too long")),
        Map.entry("Too many levels of symbolic links", new Code(40, "ELOOP", "Too many levels of symbolic links")),
        Map.entry("Disk quota exceeded", new Code(122, "EDQUOT", "Disk quota exceeded")),
        Map.entry("No such device or address", new Code(6, "ENXIO", "No such device or address")));

    private Errno() {
    }

    /** "errno N NAME (meaning)" for {@code e}, or its message when no errno can be told. */
    static String of(IOException e) {
        Code c = switch (e) {
            case NoSuchFileException x -> ENOENT;
            case AccessDeniedException x -> EACCES;
            case FileAlreadyExistsException x -> EEXIST;
            case NotDirectoryException x -> ENOTDIR;
            case DirectoryNotEmptyException x -> ENOTEMPTY;
            case NotLinkException x -> EINVAL;
            case FileSystemException x when x.getReason() != null -> BY_TEXT.get(x.getReason().strip());
            default -> null;
        };
        return c != null ? c.toString() : String.valueOf(e.getMessage());
    }
}
