package io.srdnic.block.local;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.BlockSizes;
import io.srdnic.block.Errno;
import io.srdnic.block.Extents;
import io.srdnic.block.IoCompletion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A regular file (or block device node) of fixed size, read and written in place with positional
 * IO, which is safe from many threads at once. Writes land in the kernel's page cache, shared by
 * every connection, so the device is multi-connection safe; FLUSH and FUA are {@code fdatasync}
 * ({@link FileChannel#force(boolean) force(false)}) before the reply. Completes before returning.
 * Read-only when the file is not writable or when asked. Never opened through a symbolic link.
 *
 * <p>Holes, where the file system has them: TRIM and write-zeroes punch a hole
 * ({@code fallocate(PUNCH_HOLE | KEEP_SIZE)}), write-zeroes with NO_HOLE zeroes the range in place
 * ({@code ZERO_RANGE}); where the file system refuses, TRIM does nothing (a hint) and write-zeroes
 * writes zeroes, but a <em>fast</em> write-zeroes answers ENOTSUP instead. Block status comes
 * from {@code lseek(SEEK_DATA / SEEK_HOLE)}: a hole reads as zeroes. These calls go through a
 * descriptor opened with libc (Java does not expose the channel's); the channel is then opened
 * from that descriptor ({@code /proc/self/fd/N}), not the path again, and both are checked to
 * be the file the path names (device and inode), so the two cannot be different files.
 *
 * <p>The libc descriptor is counted: each fallocate and lseek holds it, and {@link #close} closes
 * it only once none is in flight (the last one out closes it). Closed under a straggling TRIM,
 * its number could go to a file the process opens next, and the TRIM would punch that file.
 */
public final class FileBlockDevice implements BlockDevice {
    private static final ByteBuffer ZEROES = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();

    private final Path path;
    private final FileChannel channel;
    /** The same file through libc, for fallocate and lseek. */
    private final int fd;
    private final long size;
    private final boolean readOnly;
    private final AtomicLong syncs = new AtomicLong();
    private final AtomicBoolean open = new AtomicBoolean(true);
    /** Holders of {@link #fd}: 1 for the open device, plus one per fallocate or lseek running; 0 once closed. */
    private final AtomicInteger fdHolders = new AtomicInteger(1);

    public FileBlockDevice(Path path, boolean readOnly) throws IOException {
        this.path = path;
        this.readOnly = readOnly || !Files.isWritable(path);
        this.fd = Libc.open(path.toString(), this.readOnly ? Libc.O_RDONLY : Libc.O_RDWR);
        if (fd < 0) {
            throw new IOException("cannot open " + path + ": "
                    + io.srdnic.ffm.Libc.describe(-fd)); // fully qualified: clashes with block.local.Libc
        }
        FileChannel opened = null;
        try {
            Path same = Path.of("/proc/self/fd/" + fd); // the file fd has open, not a second lookup of the path
            opened = this.readOnly ? FileChannel.open(same, StandardOpenOption.READ)
                : FileChannel.open(same, StandardOpenOption.READ, StandardOpenOption.WRITE);
            Object[] viaFd = identity(same);
            Object[] viaPath = identity(path, LinkOption.NOFOLLOW_LINKS);
            if (!Arrays.equals(viaFd, viaPath)) {
                throw new IOException(path + " was replaced while it was being opened (device:inode "
                    + viaPath[0] + ":" + viaPath[1] + ", opened " + viaFd[0] + ":" + viaFd[1] + "): refusing it");
            }
            this.channel = opened;
            this.size = channel.size();
        } catch (IOException | RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            Libc.close(fd);
            throw e;
        }
    }

    /** {device, inode} of a file. */
    private static Object[] identity(Path p, LinkOption... options) throws IOException {
        var a = Files.readAttributes(p, "unix:dev,ino", options);
        return new Object[] {a.get("dev"), a.get("ino")};
    }

    /** Takes a hold on {@link #fd}; false once the device is closed (then the number may be another file's). */
    private boolean holdFd() {
        while (true) {
            int holders = fdHolders.get();
            if (holders == 0) {
                return false;
            }
            if (fdHolders.compareAndSet(holders, holders + 1)) {
                return true;
            }
        }
    }

    /** Gives a hold back; the last one, after close, closes the descriptor. */
    private void releaseFd() {
        if (fdHolders.decrementAndGet() == 0) {
            Libc.close(fd);
        }
    }

    /** fallocate on the held descriptor: 0 or -errno (-EBADF once the device is closed). */
    private int fallocate(int mode, long offset, long length) {
        if (!holdFd()) {
            return -Libc.EBADF;
        }
        try {
            return Libc.fallocate(fd, mode, offset, length);
        } finally {
            releaseFd();
        }
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
    public boolean canFastZero() {
        return !readOnly;
    }

    @Override
    public boolean reportsAllocation() {
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
        int error = 0;
        try {
            int r = fallocate(Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, offset, length);
            if (r < 0 && r != -Libc.EOPNOTSUPP) {
                error = Errno.EIO;
            } else if (fua) {
                sync();
            }
        } catch (IOException e) {
            error = errno(e);
        }
        done.complete(error);
    }

    @Override
    public void writeZeroes(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
        int r = zeroInFileSystem(offset, length, mayPunch);
        if (r == 0) {
            done.complete(syncIf(fua));
        } else if (r != -Libc.EOPNOTSUPP) {
            done.complete(r == -Libc.ENOSPC ? Errno.ENOSPC : Errno.EIO);
        } else {
            writeZeroBytes(offset, length, fua, done);
        }
    }

    @Override
    public void writeZeroesFast(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
        int r = zeroInFileSystem(offset, length, mayPunch);
        if (r == 0) {
            done.complete(syncIf(fua));
        } else {
            done.complete(r == -Libc.EOPNOTSUPP ? Errno.ENOTSUP : r == -Libc.ENOSPC ? Errno.ENOSPC : Errno.EIO);
        }
    }

    /** A hole punched (or, for NO_HOLE or where punching is refused, the range zeroed in place): 0 or -errno. */
    private int zeroInFileSystem(long offset, long length, boolean mayPunch) {
        int r = -Libc.EOPNOTSUPP;
        if (mayPunch) {
            r = fallocate(Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, offset, length);
        }
        if (r == -Libc.EOPNOTSUPP) {
            r = fallocate(Libc.FALLOC_FL_ZERO_RANGE | Libc.FALLOC_FL_KEEP_SIZE, offset, length);
        }
        return r;
    }

    private int syncIf(boolean fua) {
        try {
            if (fua) {
                sync();
            }
            return 0;
        } catch (IOException e) {
            return errno(e);
        }
    }

    /**
     * base:allocation from the file system: SEEK_DATA finds the next data, SEEK_HOLE its end. No
     * data after the offset (ENXIO) is one hole to the end; a file system that cannot tell (any
     * other error) is reported as data.
     */
    @Override
    public int blockStatus(long offset, long length, Extents out) {
        if (!holdFd()) {
            return Errno.EIO; // closed
        }
        try {
            return describe(offset, length, out);
        } finally {
            releaseFd();
        }
    }

    private int describe(long offset, long length, Extents out) {
        long end = offset + length;
        long at = offset;
        while (at < end) {
            long data = Libc.lseek(fd, at, Libc.SEEK_DATA);
            if (data < 0) {
                out.extent(end - at, data == -Libc.ENXIO ? Extents.HOLE | Extents.ZERO : 0);
                return 0;
            }
            long next;
            int state;
            if (data > at) {
                next = Math.min(data, end);
                state = Extents.HOLE | Extents.ZERO;
            } else {
                long hole = Libc.lseek(fd, at, Libc.SEEK_HOLE);
                next = hole <= at ? end : Math.min(hole, end);
                state = 0;
            }
            if (!out.extent(next - at, state)) {
                return 0;
            }
            at = next;
        }
        return 0;
    }

    private void writeZeroBytes(long offset, long length, boolean fua, IoCompletion done) {
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
        if (!open.compareAndSet(true, false)) {
            return; // the descriptor number may belong to another file by now
        }
        releaseFd(); // the device's own hold: fd closes now, or when the last operation using it ends
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
