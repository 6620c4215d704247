package io.srdnic.nbd;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.Errno;
import io.srdnic.block.IoCompletion;
import io.srdnic.block.MergedExtents;
import java.nio.ByteBuffer;

/**
 * Answers NBD_CMD_BLOCK_STATUS for the {@code base:allocation} context: asks the device for its
 * extents and writes them as one NBD_REPLY_TYPE_BLOCK_STATUS chunk into the request slot's data
 * buffer, the chunk header in the headroom in front, so the reply leaves in one write like a read's.
 * Neighbouring extents of the same state are merged; at most {@link #MAX_DESCRIPTORS} per reply
 * (the client asks again from where the reply ended), one with NBD_CMD_FLAG_REQ_ONE. One per
 * request slot, made the first time the slot carries a block status: a device that asks elsewhere
 * (RNBD) feeds it and completes it from its own thread, while other slots' block statuses run.
 * Allocates nothing per request.
 *
 * <pre>
 *  chunk header (20 bytes, in the headroom)   payload (at the data view's start)
 *  magic | flags=DONE | type=5 | handle | len  context id (u32) | (length u32, state u32) × n
 * </pre>
 */
final class BlockStatusReply extends MergedExtents implements IoCompletion {
    static final int MAX_DESCRIPTORS = 1024;
    /** The payload of a full reply: the context id and every descriptor. */
    static final int MAX_PAYLOAD = 4 + 8 * MAX_DESCRIPTORS;

    private final RequestSlot slot;
    private ByteBuffer out;

    BlockStatusReply(RequestSlot slot) {
        this.slot = slot;
    }

    /**
     * Asks the device for the range's extents into {@code payload} (positioned at 0, at least
     * {@link #MAX_PAYLOAD} bytes); when the device completes, the slot completes with the payload's
     * length in {@link RequestSlot#length}, or with the device's error.
     */
    void start(BlockDevice device, long offset, long length, boolean reqOne, ByteBuffer payload) {
        out = payload;
        begin(reqOne ? 1 : MAX_DESCRIPTORS);
        payload.putInt(0, Nbd.CONTEXT_BASE_ALLOCATION_ID);
        device.blockStatus(offset, length, this, this);
    }

    /** The device is done describing: the payload's length into the slot, then the slot's completion. */
    @Override
    public void complete(int error) {
        int count = end();
        out = null;
        if (error == 0 && count == 0) {
            error = Errno.EIO; // a device that described nothing broke its contract; one descriptor is the minimum
        }
        slot.length = error == 0 ? 4 + 8 * count : 0;
        slot.complete(error);
    }

    @Override
    protected void put(int index, long length, int state) {
        int at = 4 + 8 * index;
        out.putInt(at, (int) length).putInt(at + 4, state);
    }

    /** The chunk header written into the headroom in front of a filled payload; the reply to send. */
    static ByteBuffer reply(RequestSlot slot) {
        ByteBuffer whole = slot.data.whole;
        int start = RequestSlot.HEADROOM - Nbd.STRUCTURED_HEADER_LENGTH;
        whole.putInt(start, Nbd.STRUCTURED_REPLY_MAGIC)
            .putShort(start + 4, (short) Nbd.REPLY_FLAG_DONE)
            .putShort(start + 6, (short) Nbd.REPLY_TYPE_BLOCK_STATUS)
            .putLong(start + 8, slot.handle)
            .putInt(start + 16, slot.length);
        return whole.limit(RequestSlot.HEADROOM + slot.length).position(start);
    }
}
