package io.srdnic.nbd;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.Errno;
import io.srdnic.block.Extents;
import java.nio.ByteBuffer;

/**
 * Answers NBD_CMD_BLOCK_STATUS for the {@code base:allocation} context: asks the device for its
 * extents and writes them as one NBD_REPLY_TYPE_BLOCK_STATUS chunk into the request slot's data
 * buffer, the chunk header in the headroom in front, so the reply leaves in one write like a read's.
 * Neighbouring extents of the same state are merged; at most {@link #MAX_DESCRIPTORS} per reply
 * (the client asks again from where the reply ended), one with NBD_CMD_FLAG_REQ_ONE. One per
 * connection, used on its reader thread only; allocates nothing per request.
 *
 * <pre>
 *  chunk header (20 bytes, in the headroom)   payload (at the data view's start)
 *  magic | flags=DONE | type=5 | handle | len  context id (u32) | (length u32, state u32) × n
 * </pre>
 */
final class BlockStatusReply implements Extents {
    static final int MAX_DESCRIPTORS = 1024;
    /** The payload of a full reply: the context id and every descriptor. */
    static final int MAX_PAYLOAD = 4 + 8 * MAX_DESCRIPTORS;

    private ByteBuffer out;
    private int count;
    private int limit;
    private long lastLength;
    private int lastState;

    /**
     * Fills {@code payload} (positioned at 0, at least {@link #MAX_PAYLOAD} bytes) with the
     * device's extents for the range; returns the payload's length, or {@code -errno}.
     */
    int fill(BlockDevice device, long offset, long length, boolean reqOne, ByteBuffer payload) {
        out = payload;
        count = 0;
        limit = reqOne ? 1 : MAX_DESCRIPTORS;
        lastLength = 0;
        payload.putInt(0, Nbd.CONTEXT_BASE_ALLOCATION_ID);
        try {
            int error = device.blockStatus(offset, length, this);
            if (error != 0) {
                return -error;
            }
            if (lastLength > 0) {
                put();
            }
        } finally {
            out = null;
        }
        if (count == 0) {
            return -Errno.EIO; // a device that described nothing broke its contract; one descriptor is the minimum
        }
        return 4 + 8 * count;
    }

    @Override
    public boolean extent(long length, int state) {
        if (length <= 0) {
            return true;
        }
        if (lastLength > 0 && state == lastState && lastLength + length <= 0xFFFF_FFFFL) {
            lastLength += length;
            return true;
        }
        if (lastLength > 0) {
            put();
            if (count == limit) {
                lastLength = 0;
                return false;
            }
        }
        lastLength = length;
        lastState = state;
        return true;
    }

    private void put() {
        int at = 4 + 8 * count++;
        out.putInt(at, (int) lastLength).putInt(at + 4, lastState);
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
