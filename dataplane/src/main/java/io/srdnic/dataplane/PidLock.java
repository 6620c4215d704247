package io.srdnic.dataplane;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.ffm.Libc;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * {@code DIR/dataplane.pid}, held with an exclusive lock (flock) for the dataplane's life: a second
 * dataplane on the same DIR finds it locked and stops, saying who holds it. Taken as daemons take
 * theirs: opened (made if missing, mode 0644 given explicitly) without following a link
 * (O_NOFOLLOW), so a link planted at its name is refused and its target never written; checked to
 * be a regular file of this uid; locked; and then checked to be still the file at the name (same
 * device and inode as the name, not following a link), else tried again. Only then is it emptied
 * and given this process's id. A file left by a dataplane killed with -9 is simply taken over: the
 * kernel dropped its lock with its holder.
 *
 * <p>No one ever removes the file while another may hold it: the one removal is by its holder on
 * {@link #close()}, under its lock and after checking the name is still its file. Whoever opened it
 * before that removal and locks it after finds, by the check, that the name no longer leads to it,
 * and starts over; so a removed file is never owned, and two dataplanes never own one directory.
 */
public final class PidLock implements AutoCloseable {
    public static final String FILE = "dataplane.pid";
    static final String MODE = "rw-r--r--";
    private static final int MODE_BITS = 0644;
    private static final int ATTEMPTS = 10;
    private static final String IDENTITY = "unix:isRegularFile,uid,dev,ino";
    private static final System.Logger LOG = System.getLogger(PidLock.class.getName());

    private final Path path;
    private final int fd;
    private final Object dev;
    private final Object ino;

    private PidLock(Path path, int fd, Object dev, Object ino) {
        this.path = path;
        this.fd = fd;
        this.dev = dev;
        this.ino = ino;
    }

    /**
     * Takes {@code dir}/dataplane.pid (the directory checked already) and writes this process's id
     * into it; throws when another process holds it.
     */
    public static PidLock acquire(Path dir) throws IOException {
        Path path = dir.resolve(FILE);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int fd = PidFileCalls.open(path, PidFileCalls.O_RDWR | PidFileCalls.O_CREAT | PidFileCalls.O_NOFOLLOW | PidFileCalls.O_CLOEXEC
                | PidFileCalls.O_NONBLOCK, MODE_BITS);
            if (fd < 0) {
                throw cannotOpen(path, -fd);
            }
            boolean kept = false;
            try {
                Map<String, Object> open = Files.readAttributes(PidFileCalls.self(fd), IDENTITY); // fstat: the file we opened
                refuseUnlessOurs(path, open);
                int locked = PidFileCalls.flock(fd, PidFileCalls.LOCK_EX | PidFileCalls.LOCK_NB);
                if (locked == -PidFileCalls.EWOULDBLOCK) {
                    throw heldBy(dir, path);
                }
                check(locked, "flock", path);
                if (!stillAt(path, open.get("dev"), open.get("ino"))) {
                    continue; // its holder removed it as it stopped, after we opened it: open what is at the name now
                }
                String previous = readPid(path);
                check(PidFileCalls.fchmod(fd, MODE_BITS), "fchmod", path);
                check(PidFileCalls.ftruncate(fd, 0), "ftruncate", path);
                byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
                long written = PidFileCalls.pwrite(fd, pid, 0);
                if (written != pid.length) {
                    throw new IOException("cannot write " + path + ": "
                            + (written < 0 ? Libc.describe((int) -written) : "short write of " + written));
                }
                check(PidFileCalls.fsync(fd), "fsync", path);
                if (!previous.isEmpty()) {
                    LOG.log(System.Logger.Level.INFO, "took over {0}, left by pid {1}, which no longer holds it", path, previous);
                }
                kept = true;
                return new PidLock(path, fd, open.get("dev"), open.get("ino"));
            } finally {
                if (!kept) {
                    PidFileCalls.close(fd); // drops our lock, if we took it
                }
            }
        }
        throw new IllegalStateException("could not take " + path + ": it was replaced under us " + ATTEMPTS + " times: is another dataplane"
            + " starting and stopping on " + dir + "?");
    }

    private static IllegalStateException cannotOpen(Path path, int errno) throws IOException {
        if (errno == PidFileCalls.ELOOP && Files.isSymbolicLink(path)) {
            return new IllegalStateException(path + " is a symbolic link (to " + Files.readSymbolicLink(path)
                + "): refusing to follow it; the dataplane writes only its own pid file (remove the link if it is not yours)");
        }
        return new IllegalStateException("cannot open " + path + ": " + Libc.describe(errno));
    }

    private static void refuseUnlessOurs(Path path, Map<String, Object> open) {
        if (!Boolean.TRUE.equals(open.get("isRegularFile"))) {
            throw new IllegalStateException(path + " is not a regular file: refusing to use it");
        }
        int owner = (Integer) open.get("uid");
        int self = AllowRule.ownUid();
        if (owner != self) {
            throw new IllegalStateException(path + " is owned by uid " + owner + ", not by this dataplane's uid " + self
                + ": refusing to use it (remove it if it is not a live dataplane's)");
        }
    }

    /** Whether the name leads, without following a link, to the file of that device and inode. */
    private static boolean stillAt(Path path, Object dev, Object ino) throws IOException {
        try {
            Map<String, Object> now = Files.readAttributes(path, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
            return dev.equals(now.get("dev")) && ino.equals(now.get("ino"));
        } catch (NoSuchFileException removed) {
            return false;
        }
    }

    private static void check(long result, String call, Path path) throws IOException {
        if (result < 0) {
            throw new IOException(call + " of " + path + " failed: " + Libc.describe((int) -result));
        }
    }

    /** The pid written in the file at {@code path} (read without following a link), or "" when there is none. */
    private static String readPid(Path path) {
        try (SeekableByteChannel ch = Files.newByteChannel(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer text = ByteBuffer.allocate(32);
            ch.read(text);
            return new String(text.array(), 0, text.position(), StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            return "";
        }
    }

    private static IllegalStateException heldBy(Path dir, Path path) {
        String holder = readPid(path);
        return new IllegalStateException("another srdnic dataplane (pid " + (holder.isEmpty() ? "?" : holder) + ") owns " + dir
            + ": stop it, or give this one another --dir");
    }

    public Path path() {
        return path;
    }

    /**
     * Removes the file, while still holding its lock and only if the name still leads to it, then
     * lets go of the lock. Anyone who opened it meanwhile and locks it next sees the name no longer
     * leads to it and starts over.
     */
    @Override
    public void close() throws IOException {
        try {
            if (stillAt(path, dev, ino)) {
                Files.delete(path);
            } else {
                LOG.log(System.Logger.Level.WARNING, "{0} is no longer this dataplane''s pid file: left as it is", path);
            }
        } finally {
            PidFileCalls.close(fd);
        }
    }
}
