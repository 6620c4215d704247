package io.srdnic.nbd.local;

import io.srdnic.nbd.BlockDevice;
import io.srdnic.nbd.BlockSizes;
import io.srdnic.nbd.Errno;
import io.srdnic.nbd.IoCompletion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A regular file (or block device node) of fixed size, read and written in place with positional
 * IO, which is safe from many threads at once. Writes land in the kernel's page cache, shared by
 * every connection, so the device is multi-connection safe; FLUSH and FUA are {@code fdatasync}
 * ({@link FileChannel#force(boolean) force(false)}) before the reply. TRIM is accepted and does
 * nothing (allowed: it is a hint); write-zeroes writes zeroes. Completes before returning.
 * Read-only when the file is not writable or when asked.
 */
public final class FileBlockDevice implements BlockDevice {
    private static final ByteBuffer ZEROES = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();

    private final Path path;
    private final FileChannel channel;
    private final long size;
    private final boolean readOnly;
    private final AtomicLong syncs = new AtomicLong();

    public FileBlockDevice(Path path, boolean readOnly) throws IOException {
        this.path = path;
        this.readOnly = readOnly || !Files.isWritable(path);
        this.channel = this.readOnly ? FileChannel.open(path, StandardOpenOption.READ)
            : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.size = channel.size();
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public BlockSizes blockSizes() {
        return BlockSizes.DEFAULT;
    }

    @Override
    public boolean readOnly() {
        return readOnly;
    }

    @Override
    public boolean multiConnSafe() {
        return true;
    }

    @Override
    public String description() {
        return "file " + path;
    }

    /** fdatasync calls made (FLUSH and FUA), for tests. */
    public long syncs() {
        return syncs.get();
    }

    @Override
    public void read(long offset, ByteBuffer dst, IoCompletion done) {
        int error = 0;
        try {
            long at = offset - dst.position(); // positional IO does not move the file's position
            while (dst.hasRemaining()) {
                if (channel.read(dst, at + dst.position()) < 0) {
                    throw new IOException(path + " is shorter than its size at open");
                }
            }
        } catch (IOException e) {
            error = errno(e);
        }
        done.complete(error);
    }

    @Override
    public void write(long offset, ByteBuffer src, boolean fua, IoCompletion done) {
        int error = 0;
        try {
            long at = offset - src.position();
            while (src.hasRemaining()) {
                channel.write(src, at + src.position());
            }
            if (fua) {
                sync();
            }
        } catch (IOException e) {
            error = errno(e);
        }
        done.complete(error);
    }

    @Override
    public void flush(IoCompletion done) {
        int error = 0;
        try {
            sync();
        } catch (IOException e) {
            error = errno(e);
        }
        done.complete(error);
    }

    @Override
    public void trim(long offset, long length, boolean fua, IoCompletion done) {
        done.complete(0);
    }

    @Override
    public void writeZeroes(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
        int error = 0;
        try {
            ByteBuffer zeroes = ZEROES.duplicate(); // its own position: other threads write zeroes too
            long end = offset + length;
            while (offset < end) {
                zeroes.clear().limit((int) Math.min(zeroes.capacity(), end - offset));
                while (zeroes.hasRemaining()) {
                    offset += channel.write(zeroes, offset);
                }
            }
            if (fua) {
                sync();
            }
        } catch (IOException e) {
            error = errno(e);
        }
        done.complete(error);
    }

    private void sync() throws IOException {
        syncs.incrementAndGet();
        channel.force(false);
    }

    /** ENOSPC for a full disk or quota (as the spec asks), EIO for anything else. */
    private static int errno(IOException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("No space left") || m.contains("quota") || m.contains("File too large") ? Errno.ENOSPC : Errno.EIO;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
