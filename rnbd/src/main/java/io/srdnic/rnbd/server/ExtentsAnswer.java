package io.srdnic.rnbd.server;

import io.srdnic.block.MergedExtents;
import io.srdnic.rnbd.protocol.BlockStatusRsp;
import java.lang.foreign.MemorySegment;

/**
 * Writes a device's extents into a BLOCK_STATUS answer, as many as the client's read buffer holds
 * (an extent at most a u32 of bytes, as the asked range is). One per server, used on its poll
 * thread; allocates nothing per request.
 */
final class ExtentsAnswer extends MergedExtents {
    private MemorySegment out;

    /** Starts an answer in {@code out} (at 0) holding at most {@code capacity} extents. */
    void begin(MemorySegment out, int capacity) {
        this.out = out;
        begin(capacity);
    }

    @Override
    protected void put(int index, long length, int state) {
        BlockStatusRsp.extent(out, 0, index, length, state & BlockStatusRsp.STATES);
    }

    /** Ends the answer: writes the last extent and the header; returns the count. */
    int finish() {
        int count = end();
        BlockStatusRsp.header(out, 0, count);
        out = null;
        return count;
    }
}
