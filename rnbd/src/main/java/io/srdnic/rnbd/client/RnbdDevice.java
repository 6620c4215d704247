package io.srdnic.rnbd.client;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.BlockSizes;
import io.srdnic.block.Errno;
import io.srdnic.block.Extents;
import io.srdnic.block.IoCompletion;
import io.srdnic.rnbd.protocol.OpenRsp;
import io.srdnic.rnbd.protocol.Rnbd;
import java.nio.ByteBuffer;

/**
 * A device opened over an RNBD session (Linux's rnbd_clt_dev), as an NBD export: every operation
 * is queued to the session's poll thread and completes from it. Sizes and limits come from the
 * server's OPEN_RSP; after the session comes back from losing every path, the device is opened
 * again (its id may change) before its queued IO moves on.
 */
public final class RnbdDevice implements BlockDevice {
    /** NBD payloads up to this are split into RTRS IOs of the session's max IO size. */
    static final int MAX_PAYLOAD = 32 << 20;
    /** A block status asks about at most this much at once (BLOCK_STATUS's bi_size is a u32 of whole sectors). */
    static final long MAX_STATUS_RANGE = 0xFFFF_FE00L;

    final RnbdClient client;
    final String name;
    final int accessMode;
    volatile DeviceState state = DeviceState.PENDING;
    volatile int errno;
    volatile int id = -1;
    volatile OpenRsp.Geometry geometry;
    /** Opens done, the first and each one after a reconnect. */
    volatile int opens;
    /** Set when the server refused BLOCK_STATUS (a Linux server): the device is called allocated from then on. */
    volatile boolean noAllocationMap;

    RnbdDevice(RnbdClient client, String name, int accessMode) {
        this.client = client;
        this.name = name;
        this.accessMode = accessMode;
    }

    public String name() {
        return name;
    }

    public DeviceState state() {
        return state;
    }

    /** The errno the server refused the OPEN with (state FAILED). */
    public int errno() {
        return errno;
    }

    /** The id the server gave, -1 before. */
    public int id() {
        return id;
    }

    public int opens() {
        return opens;
    }

    /** The server's geometry, null before the first OPEN_RSP. */
    public OpenRsp.Geometry geometry() {
        return geometry;
    }

    @Override
    public long size() {
        OpenRsp.Geometry g = geometry;
        if (g == null) {
            throw new IllegalStateException("device " + name + " is not open yet: " + state);
        }
        return g.sectors() << Rnbd.SECTOR_SHIFT;
    }

    @Override
    public BlockSizes blockSizes() {
        OpenRsp.Geometry g = geometry;
        int logical = g == null ? Rnbd.SECTOR_SIZE : g.logicalBlockSize();
        return new BlockSizes(logical, Math.max(4096, logical), MAX_PAYLOAD);
    }

    @Override
    public boolean readOnly() {
        return accessMode == Rnbd.ACCESS_RO;
    }

    /** The server has no per-connection cache: a flush on one connection covers every other. */
    @Override
    public boolean multiConnSafe() {
        return true;
    }

    @Override
    public String description() {
        return "rnbd " + name + " (" + Rnbd.accessName(accessMode) + ")";
    }

    @Override
    public void read(long offset, ByteBuffer dst, IoCompletion done) {
        submit(Rnbd.OP_READ, 0, offset, dst.remaining(), dst, done);
    }

    @Override
    public void write(long offset, ByteBuffer src, boolean fua, IoCompletion done) {
        submit(Rnbd.OP_WRITE, fua ? Rnbd.F_FUA : 0, offset, src.remaining(), src, done);
    }

    /** Linux sends a flush as an empty FLUSH with PREFLUSH. */
    @Override
    public void flush(IoCompletion done) {
        submit(Rnbd.OP_FLUSH, Rnbd.F_PREFLUSH, 0, 0, null, done);
    }

    @Override
    public void trim(long offset, long length, boolean fua, IoCompletion done) {
        submit(Rnbd.OP_DISCARD, fua ? Rnbd.F_FUA : 0, offset, length, null, done);
    }

    @Override
    public void writeZeroes(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
        submit(Rnbd.OP_WRITE_ZEROES, (fua ? Rnbd.F_FUA : 0) | (mayPunch ? 0 : Rnbd.F_NOUNMAP), offset, length, null, done);
    }

    /** The server's device map, through srdnic's BLOCK_STATUS message (docs/rnbd.md). */
    @Override
    public boolean reportsAllocation() {
        return true;
    }

    /**
     * Asks the server for the range's extents; they and then {@code done} come on the session's
     * poll thread. A range that is not whole sectors, or a server that does not know the message,
     * gets "allocated" for the whole range without a question, which is always true enough.
     */
    @Override
    public void blockStatus(long offset, long length, Extents out, IoCompletion done) {
        if (((offset | length) & (Rnbd.SECTOR_SIZE - 1)) != 0 || noAllocationMap) {
            out.extent(length, 0);
            done.complete(0);
            return;
        }
        client.enqueue(this, RnbdClient.OP_BLOCK_STATUS, 0, offset, Math.min(length, MAX_STATUS_RANGE), out, done);
    }

    private void submit(int op, int flags, long offset, long length, ByteBuffer buffer, IoCompletion done) {
        if (((offset | length) & (Rnbd.SECTOR_SIZE - 1)) != 0) {
            done.complete(Errno.EINVAL); // sectors only: the advertised minimum block is 512
            return;
        }
        client.enqueue(this, op, flags, offset, length, buffer, done);
    }

    /** Sends CLOSE; the device takes no operation afterwards. */
    @Override
    public void close() {
        client.closeDevice(this);
    }
}
