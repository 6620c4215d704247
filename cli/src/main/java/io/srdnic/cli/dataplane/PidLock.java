package io.srdnic.cli.dataplane;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code DIR/dataplane.pid}, held with an exclusive file lock for the dataplane's life: a second
 * dataplane on the same DIR finds it locked and stops, saying who holds it. The lock (not the
 * file's existence) is what counts, so a file left by a killed dataplane does not block the next.
 */
public final class PidLock implements AutoCloseable {
    public static final String FILE = "dataplane.pid";

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;

    private PidLock(Path path, FileChannel channel, FileLock lock) {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes {@code dir}/dataplane.pid and writes this process's id into it; throws when another process holds it. */
    public static PidLock acquire(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path path = dir.resolve(FILE);
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock = ch.tryLock();
        if (lock == null) {
            String holder = Files.readString(path, StandardCharsets.US_ASCII).trim();
            ch.close();
            throw new IllegalStateException("another srdnic dataplane (pid " + holder + ") owns " + dir
                + ": stop it, or give this one another --dir");
        }
        ch.truncate(0);
        ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
        ch.force(false);
        return new PidLock(path, ch, lock);
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
