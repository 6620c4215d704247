package io.srdnic.dataplane.attach;

import io.srdnic.srd.counters.CountersWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * What every attached client holds, as {@code srdnic dataplane res} reads it (the shape of
 * {@code rdma res show}): {@code DIR/<pid>-attach[-lcore<k>].res}, one record a line, rewritten
 * whole by the attach server when its clients' objects change (at most every {@link #INTERVAL_NANOS}),
 * removed when the server closes. The text is made on the dataplane's thread (it reads the clients'
 * state, which is that thread's); the file IO is done by a writer thread of its own, so that the
 * packet thread never waits on the filesystem. Made as a counters file is: under a temporary name, exclusively
 * and without following a link, mode 0640 on the open file, renamed into place (a reader sees the
 * old whole file or the new one). Format ({@link #VERSION}):
 * <pre>
 * srdnic-res 1
 * dataplane pid P lcore K
 * client ID uid U pid P port I device NAME pool_bytes N ring_bytes N mr_bytes N
 * pd HANDLE client ID
 * cq HANDLE client ID depth N
 * qp QPN client ID type T state S
 * mr LKEY client ID length N
 * srq SRQN client ID
 * ah N client ID
 * xrcd HANDLE client ID
 * cm_id HANDLE client ID
 * </pre>
 */
final class ResFile implements AutoCloseable {
    static final String SUFFIX = ".res";
    static final int VERSION = 1;
    static final long INTERVAL_NANOS = 100_000_000L;

    private final Path file;
    private final StringBuilder text = new StringBuilder();
    private boolean dirty = true;
    private long lastWrite;
    /** How many times the file's text was made and handed to the writer (tests: a query must not rewrite it). */
    private long writes;
    /** The newest text not yet written: the dataplane's thread sets it, the writer thread takes it. */
    private final AtomicReference<byte[]> pending = new AtomicReference<>();
    /** Writes the file off the dataplane's thread (create, chmod, write, rename): started at the first write. */
    private Thread writer;
    private volatile boolean closing;

    ResFile(Path dir, int lcore) {
        this.file = dir.resolve(ProcessHandle.current().pid() + "-attach" + (lcore == 0 ? "" : "-lcore" + lcore) + SUFFIX);
    }

    Path file() {
        return file;
    }

    /**
     * The clients' objects changed (made, destroyed, a QP's state, a client came or went): the next
     * {@link #maybeWrite} rewrites the file. Not called for queries: a client looping on them must
     * not make the dataplane's thread rebuild and write this file.
     */
    void changed() {
        dirty = true;
    }

    /** Rewrites the file from {@code server}'s clients if they changed and the interval is up (or {@code force}). */
    void maybeWrite(AttachServer server, int lcore, long now, boolean force) {
        if (!dirty || (!force && now - lastWrite < INTERVAL_NANOS)) {
            return;
        }
        dirty = false;
        lastWrite = now;
        text.setLength(0);
        text.append("srdnic-res ").append(VERSION).append('\n');
        text.append("dataplane pid ").append(ProcessHandle.current().pid()).append(" lcore ").append(lcore).append('\n');
        server.describeClients(text);
        writes++;
        // The text is the clients' state, read here on their thread; the file IO is the writer's.
        pending.set(text.toString().getBytes(StandardCharsets.US_ASCII));
        if (writer == null) {
            writer = Thread.ofPlatform().daemon().name("srdnic-res-" + file.getFileName()).start(this::writeLoop);
        }
        LockSupport.unpark(writer);
    }

    long writes() {
        return writes;
    }

    /** The writer thread: writes the newest text handed over (older ones are skipped), until closed. */
    private void writeLoop() {
        while (true) {
            byte[] bytes = pending.getAndSet(null);
            if (bytes != null) {
                write(bytes);
            } else if (closing) {
                return;
            } else {
                LockSupport.park(this);
            }
        }
    }

    private void write(byte[] bytes) {
        Path made = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.deleteIfExists(made);
            try (FileChannel ch = FileChannel.open(made, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                Files.getFileAttributeView(made, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .setPermissions(PosixFilePermissions.fromString(CountersWriter.MODE));
                ch.write(ByteBuffer.wrap(bytes));
            }
            Files.move(made, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            System.getLogger(ResFile.class.getName()).log(System.Logger.Level.WARNING, "cannot write " + file + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        closing = true;
        pending.set(null); // the file goes: a write still waiting would only make it again
        if (writer != null) {
            LockSupport.unpark(writer);
            try {
                writer.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the sweep at the next start removes it
        }
    }
}
