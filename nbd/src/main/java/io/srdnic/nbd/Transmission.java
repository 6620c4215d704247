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
 *
 * <p>Replies to requests the device completes on the reader's own thread (the local devices) are
 * held back while more requests are already buffered, and go out together in one gathering write
 * before the reader would block: a burst of requests costs one read and one write call, not one
 * write per reply. Replies completed on other threads go out at once.
 */
final class Transmission {
    private static final System.Logger LOG = System.getLogger(Transmission.class.getName());
    static final int SLOTS = 64;
    static final int SLOT_BUFFER_MAX = 256 << 10;
    /** Replies held back at most before they are written together. */
    private static final int BATCH = 32;
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
    private final BlockStatusReply blockStatus = new BlockStatusReply();
    private final ByteBuffer[] batch = new ByteBuffer[BATCH];
    private final RequestSlot[] batchSlots = new RequestSlot[BATCH];
    private int batched;
    private Thread reader;

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
        reader = Thread.currentThread();
        try {
            serve();
        } finally {
            flush();
            slots.awaitAllFree();
        }
    }

    private void serve() throws IOException, InterruptedException {
        while (true) {
            if (in.buffered() < Nbd.REQUEST_LENGTH) {
                flush(); // about to wait for the client: it must have every answer it can have first
            }
            if (!in.fill(Nbd.REQUEST_LENGTH)) {
                return;
            }
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
            RequestSlot slot = takeSlot();
            slot.handle = handle;
            slot.type = type;
            slot.offset = offset;
            slot.length = (int) length;
            int error = RequestCheck.check(type, flags, offset, length, size, maxPayload, device.readOnly(), session);
            if (error != 0) {
                if (type == Nbd.CMD_WRITE) {
                    flushUnlessBuffered(length);
                    in.skip(length); // the payload follows the header whether we take it or not
                }
                finish(slot, error);
                continue;
            }
            start(slot, flags, offset, length);
        }
    }

    /** Starts a checked request; {@code length} is the wire's unsigned 32 bits (READ and WRITE: at most the maximum payload). */
    private void start(RequestSlot slot, int flags, long offset, long length) throws IOException, InterruptedException {
        boolean fua = (flags & Nbd.CMD_FLAG_FUA) != 0;
        ByteBuffer data = null;
        if (slot.type == Nbd.CMD_READ || slot.type == Nbd.CMD_WRITE) {
            data = attach(slot, (int) length);
        }
        if (slot.type == Nbd.CMD_WRITE) {
            flushUnlessBuffered(length);
            in.readFully(data);
            data.flip();
        }
        try {
            switch (slot.type) {
                case Nbd.CMD_READ -> device.read(offset, data, slot);
                case Nbd.CMD_WRITE -> device.write(offset, data, fua, slot);
                case Nbd.CMD_FLUSH -> device.flush(slot);
                case Nbd.CMD_TRIM -> device.trim(offset, length, fua, slot);
                case Nbd.CMD_WRITE_ZEROES -> {
                    boolean punch = (flags & Nbd.CMD_FLAG_NO_HOLE) == 0;
                    if ((flags & Nbd.CMD_FLAG_FAST_ZERO) != 0) {
                        device.writeZeroesFast(offset, length, fua, punch, slot);
                    } else {
                        device.writeZeroes(offset, length, fua, punch, slot);
                    }
                }
                case Nbd.CMD_BLOCK_STATUS -> {
                    int filled = blockStatus.fill(device, offset, length, (flags & Nbd.CMD_FLAG_REQ_ONE) != 0,
                        attach(slot, BlockStatusReply.MAX_PAYLOAD));
                    slot.length = Math.max(0, filled);
                    finish(slot, Math.max(0, -filled));
                }
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
            flush(); // the large buffer may be in a held-back reply
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

    private RequestSlot takeSlot() throws InterruptedException {
        RequestSlot slot = slots.tryTake();
        if (slot == null) {
            flush(); // held-back replies hold slots
            slot = slots.take();
        }
        return slot;
    }

    private void flushUnlessBuffered(long length) {
        if (in.buffered() < length) {
            flush();
        }
    }

    /**
     * Answers a request and frees its slot; on the reader's thread the answer is held back until
     * the next {@link #flush}.
     */
    void finish(RequestSlot slot, int error) {
        ByteBuffer reply = error != 0 ? statusReply(slot, error)
            : slot.type == Nbd.CMD_READ ? readReply(slot)
            : slot.type == Nbd.CMD_BLOCK_STATUS ? BlockStatusReply.reply(slot)
            : statusReply(slot, 0);
        if (Thread.currentThread() == reader) {
            batch[batched] = reply;
            batchSlots[batched++] = slot;
            if (batched == BATCH) {
                flush();
            }
            return;
        }
        if (!out.broken()) {
            out.write(reply);
        }
        release(slot);
    }

    /** Writes the held-back replies together and frees their slots. */
    private void flush() {
        if (batched == 0) {
            return;
        }
        if (!out.broken()) {
            if (batched == 1) {
                out.write(batch[0]); // the common case at queue depth 1: write, not writev
            } else {
                out.write(batch, batched);
            }
        }
        for (int i = 0; i < batched; i++) {
            batch[i] = null;
            release(batchSlots[i]);
            batchSlots[i] = null;
        }
        batched = 0;
    }

    private void release(RequestSlot slot) {
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
        if (session.structuredReplies() && (slot.type == Nbd.CMD_READ || slot.type == Nbd.CMD_BLOCK_STATUS)) {
            reply.putInt(Nbd.STRUCTURED_REPLY_MAGIC).putShort((short) Nbd.REPLY_FLAG_DONE)
                .putShort((short) Nbd.REPLY_TYPE_ERROR).putLong(slot.handle).putInt(6)
                .putInt(error).putShort((short) 0);
        } else {
            reply.putInt(Nbd.SIMPLE_REPLY_MAGIC).putInt(error).putLong(slot.handle);
        }
        return reply.flip();
    }
}
