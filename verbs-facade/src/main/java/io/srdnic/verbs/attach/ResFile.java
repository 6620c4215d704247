package io.srdnic.verbs.attach;

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

/**
 * What every attached client holds, as {@code srdnic dataplane res} reads it (the shape of
 * {@code rdma res show}): {@code DIR/<pid>-attach[-lcore<k>].res}, one record a line, rewritten
 * whole by the attach server when its clients' objects change (at most every {@link #INTERVAL_NANOS}),
 * removed when the server closes. Made as a counters file is: under a temporary name, exclusively
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
    /** How many times the file was written (tests: a query must not rewrite it). */
    private long writes;

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
        write(text.toString().getBytes(StandardCharsets.US_ASCII));
    }

    long writes() {
        return writes;
    }

    private void write(byte[] bytes) {
        writes++;
        Path made = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.deleteIfExists(made);
            try (FileChannel ch = FileChannel.open(made, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
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
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the sweep at the next start removes it
        }
    }
}
