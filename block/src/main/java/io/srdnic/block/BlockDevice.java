package io.srdnic.block;

import java.nio.ByteBuffer;

/**
 * What an NBD export serves: a range of bytes with a handful of operations. Every operation is
 * asynchronous: it returns at once or when done, and calls {@code done} exactly once, from any
 * thread, with 0 or an {@link Errno} value. The server has many operations of one connection (and
 * of several connections) outstanding at a time, so a device that queues work on a remote peer (an
 * RNBD client) completes from its own threads; the local devices complete before they return.
 *
 * <p>Buffers belong to the caller and are valid until {@code done} is called: {@code read} fills
 * every remaining byte of {@code dst}, {@code write} writes every remaining byte of {@code src};
 * either may move the buffer's position. The server has already checked that every range lies
 * inside {@link #size()}, that lengths are positive and that writes are not sent to a read-only
 * device: a device need not check again. An operation that throws must not have called, nor call
 * later, its {@code done}: the server answers the request with EIO itself.
 */
public interface BlockDevice extends AutoCloseable {

    /** The device's size in bytes. */
    long size();

    /** Block sizes to advertise (NBD_INFO_BLOCK_SIZE). */
    BlockSizes blockSizes();

    /** Whether writes, trims and write-zeroes are refused (NBD_FLAG_READ_ONLY, EPERM). */
    boolean readOnly();

    /**
     * Whether FLUSH and FUA on one connection are visible to every other connection when they
     * complete (NBD_FLAG_CAN_MULTI_CONN): true when the device has no per-connection cache.
     */
    boolean multiConnSafe();

    /** A short text for NBD_INFO_DESCRIPTION, or "" for none. */
    default String description() {
        return "";
    }

    void read(long offset, ByteBuffer dst, IoCompletion done);

    /** With {@code fua}, completes only once the data is on stable storage. */
    void write(long offset, ByteBuffer src, boolean fua, IoCompletion done);

    /** Completes once every write completed before it is on stable storage. */
    void flush(IoCompletion done);

    /** A hint that the range is no longer needed; its contents are undefined afterwards. */
    void trim(long offset, long length, boolean fua, IoCompletion done);

    /**
     * Makes the range read as zeroes. With {@code mayPunch} false (NBD_CMD_FLAG_NO_HOLE) the range
     * stays allocated; with it true the device may deallocate it instead.
     */
    void writeZeroes(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done);

    /**
     * Whether zeroing can be done faster than writing zeroes (NBD_FLAG_SEND_FAST_ZERO): then
     * {@link #writeZeroesFast} is called for requests with NBD_CMD_FLAG_FAST_ZERO.
     */
    default boolean canFastZero() {
        return false;
    }

    /**
     * As {@link #writeZeroes}, but only if that is quick (a hole punched, a range zeroed by the
     * file system or the memory manager); otherwise completes {@link Errno#ENOTSUP} having changed
     * nothing, so the client falls back to a plain write-zeroes or skips the range.
     */
    default void writeZeroesFast(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
        done.complete(Errno.ENOTSUP);
    }

    /** Whether {@link #blockStatus} tells holes and zeroes from data (NBD's base:allocation context). */
    default boolean reportsAllocation() {
        return false;
    }

    /**
     * Describes the range from {@code offset} as consecutive extents, each at most what is left of
     * {@code length}, until the range is covered or {@code out} wants no more. Runs on the caller's
     * thread and returns 0 or an {@link Errno} value. The default says "allocated" for the whole
     * range, which is always true enough (proto.md: a server may always report status 0).
     */
    default int blockStatus(long offset, long length, Extents out) {
        out.extent(length, 0);
        return 0;
    }

    /**
     * {@link #blockStatus(long, long, Extents)} for a device whose map lives elsewhere (an RNBD
     * device asks its server): feeds {@code out} and then calls {@code done}, both from any thread
     * and possibly after this returns, exactly once, with 0 or an {@link Errno} value. The default
     * asks the synchronous form on the caller's thread.
     */
    default void blockStatus(long offset, long length, Extents out, IoCompletion done) {
        done.complete(blockStatus(offset, length, out));
    }

    /** Releases the device; no operation is started afterwards. */
    @Override
    void close();
}
