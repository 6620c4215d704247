package io.srdnic.dataplane;

import io.srdnic.ffm.Libc;
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
 * The errno behind a file error, named and explained in one phrase as every srdnic message says
 * one ({@code EACCES (Permission denied)}, {@link Libc#describe}): Java's file exceptions carry the
 * path, and the reason only as the exception's type or strerror's text, which an operator cannot
 * look up. For the dataplane's start-up errors about {@code --dir} and {@code --shm-dir}.
 */
final class Errno {
    /** strerror's text, as the JDK puts it in a FileSystemException's reason, to its errno. */
    private static final Map<String, Integer> BY_TEXT = Map.ofEntries(
        Map.entry("Operation not permitted", Libc.EPERM),
        Map.entry("No such file or directory", Libc.ENOENT),
        Map.entry("Permission denied", Libc.EACCES),
        Map.entry("File exists", Libc.EEXIST),
        Map.entry("Not a directory", Libc.ENOTDIR),
        Map.entry("Is a directory", Libc.EISDIR),
        Map.entry("Invalid argument", Libc.EINVAL),
        Map.entry("No space left on device", Libc.ENOSPC),
        Map.entry("Read-only file system", Libc.EROFS),
        Map.entry("File name too long", Libc.ENAMETOOLONG),
        Map.entry("Too many levels of symbolic links", Libc.ELOOP),
        Map.entry("Disk quota exceeded", Libc.EDQUOT),
        Map.entry("No such device or address", Libc.ENXIO));

    private Errno() {
    }

    /** "NAME (meaning)" for {@code e}, or its message when no errno can be told. */
    static String of(IOException e) {
        Integer errno = switch (e) {
            case NoSuchFileException x -> Libc.ENOENT;
            case AccessDeniedException x -> Libc.EACCES;
            case FileAlreadyExistsException x -> Libc.EEXIST;
            case NotDirectoryException x -> Libc.ENOTDIR;
            case DirectoryNotEmptyException x -> Libc.ENOTEMPTY;
            case NotLinkException x -> Libc.EINVAL;
            case FileSystemException x when x.getReason() != null -> BY_TEXT.get(x.getReason().strip());
            default -> null;
        };
        return errno != null ? Libc.describe(errno) : String.valueOf(e.getMessage());
    }
}
