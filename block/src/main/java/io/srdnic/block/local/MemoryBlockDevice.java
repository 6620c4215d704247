package io.srdnic.block.local;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.BlockSizes;
import io.srdnic.block.Extents;
import io.srdnic.block.IoCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A device in this process's memory but not on the Java heap: one private anonymous mapping of
 * its size ({@code mmap} with MAP_NORESERVE), so the kernel makes a page on its first write and an
 * unwritten page reads as zeroes, and the garbage collector never sees the data (a heap device
 * made a full heap and multi-second pauses out of a 1 GiB disk). An anonymous mapping rather
 * than a memfd: nothing else maps this memory, so there is no descriptor to pass, and
 * MADV_DONTNEED on private anonymous pages frees them and makes them read as zeroes, which is
 * exactly a punched hole.
 *
 * <p>A bitmap (its own sparse mapping, one bit per {@link #PAGE}) says which pages were written:
 * that is the {@code base:allocation} map (a page never written, trimmed or zeroed without
 * NO_HOLE is a hole that reads as zeroes). Trim and write-zeroes give whole pages back to the
 * kernel; partial pages are zero-filled.
 *
 * <p>The size is checked against the memory free at start ({@link MemoryBudget}). {@link #close}
 * unmaps both mappings at once through their shared arena, so nothing touches unmapped memory: an
 * access still running on another thread fails with IllegalStateException (see {@link #close}),
 * it never faults. Completes every operation before returning; shared by
 * every connection without a cache, so multi-connection safe; FLUSH and FUA have nothing to do.
 */
public final class MemoryBlockDevice implements BlockDevice {
    /** The tracking grain: the kernel's page, the unit MADV_DONTNEED frees. */
    static final int PAGE = 4096;
    private static final int PAGE_SHIFT = 12;
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    private static final long CLOSE_WAIT_NANOS = 10_000_000_000L;
    /** The mapping is read and written through ByteBuffer windows of this size (absolute bulk puts allocate nothing). */
    private static final int WINDOW_SHIFT = 30;
    private static final long WINDOW = 1L << WINDOW_SHIFT;
    private static final ByteBuffer ZEROES = ByteBuffer.allocateDirect(64 << 10);

    private final long size;
    private final boolean readOnly;
    private final long pages;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    /** One bit per page, set once the page holds written data. */
    private final MemorySegment written;
    private final long mapped;
    private final long bitmapBytes;
    private final ByteBuffer[] windows;
    private volatile boolean closed;

    public MemoryBlockDevice(long size, boolean readOnly) {
        long count = size / PAGE + (size % PAGE != 0 ? 1 : 0);
        if (size < 0 || count > (1L << 40)) {
            throw new IllegalArgumentException("memory device size out of range: " + size);
        }
        this.size = size;
        this.readOnly = readOnly;
        this.pages = count;
        this.mapped = Math.max(1, count) * PAGE;
        this.bitmapBytes = Math.max(PAGE, ((count + 63) / 64 * 8 + PAGE - 1) / PAGE * PAGE);
        MemoryBudget.reserve(size, "a memory device");
        MemorySegment data = null;
        try {
            data = Libc.mapAnonymous(mapped);
            MemorySegment bits = Libc.mapAnonymous(bitmapBytes);
            long dataBytes = mapped;
            long bitBytes = bitmapBytes;
            this.memory = data.reinterpret(dataBytes, arena, at -> Libc.munmap(at, dataBytes));
            this.written = bits.reinterpret(bitBytes, arena, at -> Libc.munmap(at, bitBytes));
            this.windows = new ByteBuffer[(int) ((mapped + WINDOW - 1) >>> WINDOW_SHIFT)];
            for (int i = 0; i < windows.length; i++) {
                long at = (long) i << WINDOW_SHIFT;
                windows[i] = memory.asSlice(at, Math.min(WINDOW, mapped - at)).asByteBuffer();
            }
        } catch (RuntimeException e) {
            if (data != null) {
                Libc.munmap(data, mapped);
            }
            arena.close();
            MemoryBudget.release(size);
            throw e;
        }
    }

    /**
     * Throws the IllegalArgumentException a device of {@code size} would throw now for want of
     * memory (both sizes named), without making one: for a launcher whose device lives in a child.
     */
    public static void checkFits(long size) {
        MemoryBudget.reserve(size, "a memory device");
        MemoryBudget.release(size);
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
        return true;
    }

    @Override
    public boolean reportsAllocation() {
        return true;
    }

    @Override
    public String description() {
        return "memory, " + size + " bytes";
    }

    /** Pages holding written data now (for tests and the sparse claim). */
    public long allocatedPages() {
        long n = 0;
        for (long w = 0; w < (pages + 63) / 64; w++) {
            n += Long.bitCount(word(w));
        }
        return n;
    }

    @Override
    public void read(long offset, ByteBuffer dst, IoCompletion done) {
        int at = dst.position();
        int end = dst.limit();
        while (at < end) {
            ByteBuffer window = windows[(int) (offset >>> WINDOW_SHIFT)];
            int within = (int) (offset & (WINDOW - 1));
            int n = (int) Math.min(end - at, WINDOW - within);
            dst.put(at, window, within, n);
            at += n;
            offset += n;
        }
        done.complete(0);
    }

    @Override
    public void write(long offset, ByteBuffer src, boolean fua, IoCompletion done) {
        int at = src.position();
        int end = src.limit();
        // Data first, then the map: a TRIM of the same range on another connection between the two
        // then leaves "data" over zeroes (harmless), never "hole" over data (which a copy would skip).
        copyIn(offset, src, at, end);
        mark(offset >>> PAGE_SHIFT, (offset + end - at - 1) >>> PAGE_SHIFT);
        done.complete(0);
    }

    /** Copies src[at, end) to the device at {@code offset}, window by window. */
    private void copyIn(long offset, ByteBuffer src, int at, int end) {
        while (at < end) {
            ByteBuffer window = windows[(int) (offset >>> WINDOW_SHIFT)];
            int within = (int) (offset & (WINDOW - 1));
            int n = (int) Math.min(end - at, WINDOW - within);
            window.put(within, src, at, n);
            at += n;
            offset += n;
        }
    }

    /** Writes zeroes over [from, to). */
    private void fillZeroes(long from, long to) {
        while (from < to) {
            int n = (int) Math.min(to - from, ZEROES.capacity());
            copyIn(from, ZEROES, 0, n);
            from += n;
        }
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

    /** Always quick here: pages are given back or zero-filled in memory, nothing crosses a wire. */
    @Override
    public void writeZeroesFast(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
        writeZeroes(offset, length, fua, mayPunch, done);
    }

    /**
     * Zeroes a range. Pages it covers whole (the short last page counts as whole when the range
     * reaches the end) are given back to the kernel if {@code punch}, else zero-filled and kept;
     * partial pages are zero-filled if they hold data (a hole reads as zeroes already), and with
     * NO_HOLE ({@code !punch}) made allocated.
     */
    private void zero(long offset, long length, boolean punch) {
        long end = offset + length;
        long firstWhole = (offset + PAGE - 1) >>> PAGE_SHIFT;
        long endWhole = end == size ? pages : end >>> PAGE_SHIFT; // exclusive
        if (firstWhole >= endWhole) {
            zeroPartial(offset, end, punch);
            return;
        }
        zeroPartial(offset, Math.min(end, firstWhole << PAGE_SHIFT), punch);
        long from = firstWhole << PAGE_SHIFT;
        long to = endWhole << PAGE_SHIFT;
        if (punch) {
            clear(firstWhole, endWhole - 1);
            if (Libc.madvise(memory.asSlice(from, to - from), to - from, Libc.MADV_DONTNEED) != 0) {
                fillZeroes(from, to); // not on 4 KiB kernel pages: zero in place
            }
        } else {
            mark(firstWhole, endWhole - 1);
            fillZeroes(from, to);
        }
        if (to < end) {
            zeroPartial(to, end, punch);
        }
    }

    /** Zeroes [from, to), parts of at most two pages (or nothing when empty), page by page. */
    private void zeroPartial(long from, long to, boolean punch) {
        while (from < to) {
            long page = from >>> PAGE_SHIFT;
            long pageEnd = Math.min(to, (page + 1) << PAGE_SHIFT);
            if (isWritten(page)) {
                fillZeroes(from, pageEnd);
            } else if (!punch) {
                mark(page, page); // a hole reads as zeroes already; NO_HOLE wants it allocated
            }
            from = pageEnd;
        }
    }

    @Override
    public int blockStatus(long offset, long length, Extents out) {
        long end = offset + length;
        long at = offset;
        while (at < end) {
            long page = at >>> PAGE_SHIFT;
            boolean data = isWritten(page);
            long next = nextDifferent(page + 1, data);
            long extentEnd = Math.min(end, next << PAGE_SHIFT);
            if (!out.extent(extentEnd - at, data ? 0 : Extents.HOLE | Extents.ZERO)) {
                break;
            }
            at = extentEnd;
        }
        return 0;
    }

    /** The first page at or after {@code page} whose bit is not {@code set}, or {@link #pages}. */
    private long nextDifferent(long page, boolean set) {
        while (page < pages) {
            long w = page >>> 6;
            long bits = word(w);
            long look = (set ? ~bits : bits) >>> (page & 63); // ones where the state changes
            if (look != 0) {
                return Math.min(pages, page + Long.numberOfTrailingZeros(look));
            }
            page = (w + 1) << 6;
        }
        return pages;
    }

    private boolean isWritten(long page) {
        return (word(page >>> 6) & (1L << (page & 63))) != 0;
    }

    private long word(long w) {
        return (long) WORD.getVolatile(written, w << 3);
    }

    /** Sets the bits of pages first..last, touching a word only when a bit changes. */
    private void mark(long first, long last) {
        for (long w = first >>> 6; w <= last >>> 6; w++) {
            long mask = rangeMask(w, first, last);
            if ((word(w) & mask) != mask) {
                WORD.getAndBitwiseOr(written, w << 3, mask);
            }
        }
    }

    private void clear(long first, long last) {
        for (long w = first >>> 6; w <= last >>> 6; w++) {
            long mask = rangeMask(w, first, last);
            if ((word(w) & mask) != 0) {
                WORD.getAndBitwiseAnd(written, w << 3, ~mask);
            }
        }
    }

    /** The bits of word {@code w} that fall in pages first..last. */
    private static long rangeMask(long w, long first, long last) {
        long lo = Math.max(first, w << 6) & 63;
        long hi = Math.min(last, (w << 6) + 63) & 63;
        return (-1L >>> (63 - hi)) & (-1L << lo);
    }

    /**
     * Unmaps the memory (its pages go back to the kernel at once) and the bitmap. The server
     * starts no operation after close, but one may still be running on another thread. What the
     * shared arena then does (JDK 25, measured closing during a 1 GiB copy): a ByteBuffer bulk copy (a read's or write's data)
     * does not hold close back — close hands the arena's threads a safepoint, the copy throws
     * IllegalStateException "Already closed" part-way, and close unmaps (Transmission answers the
     * request EIO). Only a downcall passed the segment (madvise in a TRIM) keeps the arena acquired
     * for its call (the Linker's rule), and close then fails busy: that is what the loop waits out,
     * up to 10 s.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        while (true) {
            try {
                arena.close();
                MemoryBudget.release(size);
                return;
            } catch (IllegalStateException busy) {
                if (!arena.scope().isAlive()) {
                    return;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("memory device still in use 10 s after close: not unmapped", busy);
                }
                Thread.onSpinWait();
                Thread.yield();
            }
        }
    }
}
