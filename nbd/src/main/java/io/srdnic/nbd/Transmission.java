package io.srdnic.nbd;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;

/**
 * The transmission phase of one connection: reads requests, checks them, starts them on the
 * device, and answers each when the device completes it — in completion order, so replies may
 * overtake each other. Up to {@link #SLOTS} requests are in flight; the reader waits for a free
 * slot beyond that.
 *
 * <p>Buffers: each slot owns a direct buffer grown to the largest request up to
 * {@link #SLOT_BUFFER_MAX} it has carried; a larger request borrows the connection's one large
 * buffer (grown up to the maximum payload), one such request at a time.
 */
final class Transmission {
    private static final System.Logger LOG = System.getLogger(Transmission.class.getName());
    static final int SLOTS = 64;
    static final int SLOT_BUFFER_MAX = 256 << 10;
    private static final int SLOT_BUFFER_MIN = 4096;

    private final WireReader in;
    private final WireWriter out;
    private final Session session;
    private final BlockDevice device;
    private final long size;
    private final int maxPayload;
    private final SlotPool slots;
    private final Semaphore largeInUse = new Semaphore(1);
    private RequestSlot.DataBuffer large;

    Transmission(WireReader in, WireWriter out, Session session) {
        this.in = in;
        this.out = out;
        this.session = session;
        this.device = session.export().device();
        this.size = device.size();
        this.maxPayload = device.blockSizes().maximum();
        this.slots = new SlotPool(this, SLOTS);
    }

    /**
     * Serves requests until NBD_CMD_DISC or the end of the stream, then waits until every request
     * in flight has been answered. Throws ProtocolViolation on a request without the magic.
     */
    void run() throws IOException, InterruptedException {
        try {
            serve();
        } finally {
            slots.awaitAllFree();
        }
    }

    private void serve() throws IOException, InterruptedException {
        while (in.fill(Nbd.REQUEST_LENGTH)) {
            if (in.getInt() != Nbd.REQUEST_MAGIC) {
                throw new ProtocolViolation("request without NBD_REQUEST_MAGIC");
            }
            int flags = in.getUnsignedShort();
            int type = in.getUnsignedShort();
            long handle = in.getLong();
            long offset = in.getLong();
            long length = in.getInt() & 0xFFFF_FFFFL;
            if (type == Nbd.CMD_DISC) {
                return;
            }
            RequestSlot slot = slots.take();
            slot.handle = handle;
            slot.type = type;
            slot.offset = offset;
            slot.length = (int) length;
            int error = RequestCheck.check(type, flags, offset, length, size, maxPayload, device.readOnly(), session.structuredReplies());
            if (error != 0) {
                if (type == Nbd.CMD_WRITE) {
                    in.skip(length); // the payload follows the header whether we take it or not
                }
                finish(slot, error);
                continue;
            }
            start(slot, flags, offset, (int) length);
        }
    }

    private void start(RequestSlot slot, int flags, long offset, int length) throws IOException, InterruptedException {
        boolean fua = (flags & Nbd.CMD_FLAG_FUA) != 0;
        ByteBuffer data = null;
        if (slot.type == Nbd.CMD_READ || slot.type == Nbd.CMD_WRITE) {
            data = attach(slot, length);
        }
        if (slot.type == Nbd.CMD_WRITE) {
            in.readFully(data);
            data.flip();
        }
        try {
            switch (slot.type) {
                case Nbd.CMD_READ -> device.read(offset, data, slot);
                case Nbd.CMD_WRITE -> device.write(offset, data, fua, slot);
                case Nbd.CMD_FLUSH -> device.flush(slot);
                case Nbd.CMD_TRIM -> device.trim(offset, length, fua, slot);
                case Nbd.CMD_WRITE_ZEROES -> device.writeZeroes(offset, length, fua, (flags & Nbd.CMD_FLAG_NO_HOLE) == 0, slot);
                default -> throw new IllegalStateException("unchecked command " + slot.type);
            }
        } catch (RuntimeException e) {
            // A device that throws has not completed the request (BlockDevice's contract): answer it
            // here, or the connection would wait for it forever when it ends.
            LOG.log(System.Logger.Level.WARNING, "nbd: device failed a request by throwing", e);
            finish(slot, Errno.EIO);
        }
    }

    /** Gives the slot a buffer for {@code length} bytes, growing or borrowing one as needed. */
    private ByteBuffer attach(RequestSlot slot, int length) throws InterruptedException {
        if (length > SLOT_BUFFER_MAX) {
            largeInUse.acquire();
            if (large == null || large.capacity() < length) {
                large = new RequestSlot.DataBuffer(grown(length, maxPayload));
            }
            slot.data = large;
            slot.borrowsLarge = true;
        } else {
            if (slot.own == null || slot.own.capacity() < length) {
                slot.own = new RequestSlot.DataBuffer(grown(length, SLOT_BUFFER_MAX));
            }
            slot.data = slot.own;
        }
        return slot.data.prepare(length);
    }

    private static int grown(int length, int cap) {
        int size = Math.max(SLOT_BUFFER_MIN, Integer.highestOneBit(length - 1) << 1);
        return Math.max(length, Math.min(size, cap));
    }

    /** Answers a request (from whichever thread completed it) and frees its slot. */
    void finish(RequestSlot slot, int error) {
        if (!out.broken()) {
            out.write(error == 0 && slot.type == Nbd.CMD_READ ? readReply(slot) : statusReply(slot, error));
        }
        if (slot.borrowsLarge) {
            slot.borrowsLarge = false;
            largeInUse.release();
        }
        slot.data = null;
        slots.give(slot);
    }

    /** The read's data with its header written into the headroom in front of it. */
    private ByteBuffer readReply(RequestSlot slot) {
        ByteBuffer whole = slot.data.whole;
        int end = RequestSlot.HEADROOM + slot.length;
        if (session.structuredReplies()) {
            int start = RequestSlot.HEADROOM - Nbd.STRUCTURED_HEADER_LENGTH - 8;
            whole.putInt(start, Nbd.STRUCTURED_REPLY_MAGIC)
                .putShort(start + 4, (short) Nbd.REPLY_FLAG_DONE)
                .putShort(start + 6, (short) Nbd.REPLY_TYPE_OFFSET_DATA)
                .putLong(start + 8, slot.handle)
                .putInt(start + 16, 8 + slot.length)
                .putLong(start + 20, slot.offset);
            return whole.limit(end).position(start);
        }
        int start = RequestSlot.HEADROOM - Nbd.SIMPLE_REPLY_LENGTH;
        whole.putInt(start, Nbd.SIMPLE_REPLY_MAGIC).putInt(start + 4, 0).putLong(start + 8, slot.handle);
        return whole.limit(end).position(start);
    }

    /**
     * A reply without data. With structured replies a read's error must be an error chunk; other
     * commands may use the simple reply, and do.
     */
    private ByteBuffer statusReply(RequestSlot slot, int error) {
        ByteBuffer reply = slot.reply.clear();
        if (session.structuredReplies() && slot.type == Nbd.CMD_READ) {
            reply.putInt(Nbd.STRUCTURED_REPLY_MAGIC).putShort((short) Nbd.REPLY_FLAG_DONE)
                .putShort((short) Nbd.REPLY_TYPE_ERROR).putLong(slot.handle).putInt(6)
                .putInt(error).putShort((short) 0);
        } else {
            reply.putInt(Nbd.SIMPLE_REPLY_MAGIC).putInt(error).putLong(slot.handle);
        }
        return reply.flip();
    }
}
