package io.srdnic.cli.dataplane;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * {@code DIR/dataplane.pid}, held with an exclusive file lock for the dataplane's life: a second
 * dataplane on the same DIR finds it locked and stops, saying who holds it. The file is created
 * exclusively and without following a link (O_CREAT|O_EXCL|O_NOFOLLOW) with mode 0644 set
 * explicitly: a link planted at its name is refused, never followed, so its target is never
 * written. A file already there is removed only once it is verified stale: a regular file (not a
 * link) whose lock no live process holds (the kernel drops a lock with its holder, kill -9
 * included); then it is made afresh.
 */
public final class PidLock implements AutoCloseable {
    public static final String FILE = "dataplane.pid";
    static final String MODE = "rw-r--r--";
    private static final System.Logger LOG = System.getLogger(PidLock.class.getName());

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;

    private PidLock(Path path, FileChannel channel, FileLock lock) {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes {@code dir}/dataplane.pid (the directory checked already) and writes this process's id into it; throws when another process holds it. */
    public static PidLock acquire(Path dir) throws IOException {
        Path path = dir.resolve(FILE);
        for (int attempt = 0; attempt < 3; attempt++) {
            FileChannel ch;
            try {
                ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            } catch (FileAlreadyExistsException e) {
                removeStale(dir, path);
                continue; // removed: try to create it again (another dataplane starting beside us may win: then its lock says so)
            }
            FileLock lock = tryLock(ch);
            if (lock == null) {
                ch.close();
                throw heldBy(dir, path);
            }
            Files.getFileAttributeView(path, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .setPermissions(PosixFilePermissions.fromString(MODE));
            ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            ch.force(false);
            return new PidLock(path, ch, lock);
        }
        throw new IllegalStateException("could not create " + path + " after removing a stale one three times: is another dataplane starting on "
            + dir + "?");
    }

    /** Removes the file at {@code path} if it is a stale pid file; throws if it is a link, not a regular file, or held. */
    private static void removeStale(Path dir, Path path) throws IOException {
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            throw new IllegalStateException(path + " is a symbolic link (to " + Files.readSymbolicLink(path)
                + "): refusing to follow it; the dataplane writes only a pid file it creates itself (remove the link if it is not yours)");
        }
        if (!a.isRegularFile()) {
            throw new IllegalStateException(path + " is not a regular file: refusing to use or remove it");
        }
        try (FileChannel old = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock held = tryLock(old);
            if (held == null) {
                throw heldBy(dir, path);
            }
            ByteBuffer text = ByteBuffer.allocate(32);
            old.read(text, 0);
            String pid = new String(text.array(), 0, text.position(), StandardCharsets.US_ASCII).trim();
            Files.delete(path); // while we hold its lock: no live dataplane can be holding it
            held.release();
            LOG.log(System.Logger.Level.INFO, "removed the stale {0} of pid {1}, which no longer holds it", path, pid.isEmpty() ? "?" : pid);
        }
    }

    /** The lock, or null when another process holds it (or this JVM does: a dataplane started twice in one test JVM). */
    private static FileLock tryLock(FileChannel ch) throws IOException {
        try {
            return ch.tryLock();
        } catch (OverlappingFileLockException thisJvm) {
            return null;
        }
    }

    private static IllegalStateException heldBy(Path dir, Path path) {
        String holder;
        try {
            holder = Files.readString(path, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            holder = "?";
        }
        return new IllegalStateException("another srdnic dataplane (pid " + holder + ") owns " + dir + ": stop it, or give this one another --dir");
    }

    public Path path() {
        return path;
    }

    /** Removes the file and lets go of the lock. */
    @Override
    public void close() throws IOException {
        Files.deleteIfExists(path);
        lock.release();
        channel.close();
    }
}
