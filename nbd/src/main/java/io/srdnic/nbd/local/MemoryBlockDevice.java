package io.srdnic.nbd.local;

import io.srdnic.nbd.BlockDevice;
import io.srdnic.nbd.BlockSizes;
import io.srdnic.nbd.IoCompletion;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A device in this process's memory, sparse: storage is pages of {@link #PAGE} bytes, made on the
 * first write that touches them and dropped again when a trim or write-zeroes covers them whole;
 * a missing page reads as zeroes. Completes every operation before returning. Shared by every
 * connection and without a cache, so multi-connection safe; FLUSH and FUA have nothing to do.
 * The page table costs 4 to 8 bytes per 64 KiB of size, allocated or not.
 */
public final class MemoryBlockDevice implements BlockDevice {
    static final int PAGE = 64 << 10;
    private static final byte[] ZEROES = new byte[PAGE];

    private final long size;
    private final boolean readOnly;
    private final AtomicReferenceArray<byte[]> pages;

    public MemoryBlockDevice(long size, boolean readOnly) {
        long count = size / PAGE + (size % PAGE != 0 ? 1 : 0); // (size + PAGE - 1) would overflow near 2^63
        if (size < 0 || count > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("memory device size out of range: " + size);
        }
        this.size = size;
        this.readOnly = readOnly;
        this.pages = new AtomicReferenceArray<>((int) count);
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
        return "memory, " + size + " bytes";
    }

    /** Pages holding storage now (for tests and the sparse claim). */
    public int allocatedPages() {
        int n = 0;
        for (int i = 0; i < pages.length(); i++) {
            n += pages.get(i) != null ? 1 : 0;
        }
        return n;
    }

    @Override
    public void read(long offset, ByteBuffer dst, IoCompletion done) {
        int at = dst.position();
        int end = dst.limit();
        while (at < end) {
            int index = (int) (offset / PAGE);
            int within = (int) (offset % PAGE);
            int n = Math.min(end - at, PAGE - within);
            byte[] page = pages.get(index);
            dst.put(at, page != null ? page : ZEROES, page != null ? within : 0, n);
            at += n;
            offset += n;
        }
        done.complete(0);
    }

    @Override
    public void write(long offset, ByteBuffer src, boolean fua, IoCompletion done) {
        int at = src.position();
        int end = src.limit();
        while (at < end) {
            int index = (int) (offset / PAGE);
            int within = (int) (offset % PAGE);
            int n = Math.min(end - at, PAGE - within);
            src.get(at, page(index), within, n);
            at += n;
            offset += n;
        }
        done.complete(0);
    }

    private byte[] page(int index) {
        byte[] page = pages.get(index);
        if (page == null) {
            byte[] fresh = new byte[PAGE];
            page = pages.compareAndExchange(index, null, fresh);
            if (page == null) {
                page = fresh;
            }
        }
        return page;
    }

    @Override
    public void flush(IoCompletion done) {
        done.complete(0);
    }

    @Override
    public void trim(long offset, long length, boolean fua, IoCompletion done) {
        zero(offset, length, true);
        done.complete(0);
    }

    @Override
    public void writeZeroes(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
        zero(offset, length, mayPunch);
        done.complete(0);
    }

    /** Zeroes a range; pages it covers whole are dropped if {@code drop}, else zero-filled (allocated). */
    private void zero(long offset, long length, boolean drop) {
        long end = offset + length;
        while (offset < end) {
            int index = (int) (offset / PAGE);
            int within = (int) (offset % PAGE);
            int n = (int) Math.min(end - offset, PAGE - within);
            boolean whole = n == PAGE || within == 0 && offset + n == size;
            if (whole && drop) {
                pages.set(index, null);
            } else {
                byte[] page = drop ? pages.get(index) : page(index);
                if (page != null) {
                    Arrays.fill(page, within, within + n, (byte) 0);
                }
            }
            offset += n;
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < pages.length(); i++) {
            pages.set(i, null);
        }
    }
}
