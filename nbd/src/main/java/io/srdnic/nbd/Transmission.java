package io.srdnic.nbd;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.Errno;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;

/**
 * The transmission phase of one connection: reads requests, checks them, starts them on the
 * device, and answers each when the device completes it — in completion order, so replies may
 * overtake each other. Up to {@link #SLOTS} requests are in flight; the reader waits for a free
 * slot beyond that.
 *
 * <p>Buffers: each slot owns a direct buffer grown to the largest request up to
 * {@link #SLOT_BUFFER_MAX} it has carried; a larger request takes one of the server's
 * {@link LargeBuffers} (one at a time per connection). A write's buffer comes back when the device
 * completes it, a read's once its reply is written. A buffer that cannot be had (direct memory
 * exhausted) makes the request an ENOMEM reply, its payload read and dropped; a client gone in the
 * middle of a payload gives its slot and buffer back. So every slot comes back on every path, and
 * the connection ends when its client does.
 *
 * <p>Replies to requests the device completes on the reader's own thread (the local devices) are
 * held back while more requests are already buffered, and go out together in one gathering write
 * before the reader would block: a burst of requests costs one read and one write call, not one
 * write per reply. Replies completed on other threads go to the connection's {@link ReplyWriter},
 * so the completing thread never waits on this client's socket.
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
    private final ServerResources resources;
    private final String name;
    private final ReplyWriter writer;
    /** One large buffer per connection at a time, so that one client cannot hold them all. */
    private final Semaphore largeInUse = new Semaphore(1);
    private final ByteBuffer[] batch = new ByteBuffer[BATCH];
    private final RequestSlot[] batchSlots = new RequestSlot[BATCH];
    private int batched;
    /** Taken by the reader and neither started on the device nor answered yet: given back if the reader fails. */
    private RequestSlot pending;
    private boolean outOfMemoryLogged;
    private Thread reader;

    Transmission(WireReader in, WireWriter out, Session session, ServerResources resources, String name) {
        this.in = in;
        this.out = out;
        this.session = session;
        this.device = session.export().device();
        this.size = device.size();
        this.maxPayload = device.blockSizes().maximum();
        this.slots = new SlotPool(this, SLOTS);
        this.resources = resources;
        this.name = name;
        this.writer = new ReplyWriter(this, out, SLOTS, name.replace("nbd-conn", "nbd-reply"));
    }

    /**
     * Serves requests until NBD_CMD_DISC or the end of the stream, then waits until every request
     * in flight has been answered. Throws ProtocolViolation on a request without the magic.
     */
    void run() throws IOException, InterruptedException {
        reader = Thread.currentThread();
        writer.start();
        try {
            serve();
        } finally {
            flush();
            if (pending != null) {
                release(pending); // the client left inside the request: nobody to answer, but the slot and buffer come back
                pending = null;
            }
            slots.awaitAllFree();
            writer.stop();
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
            pending = slot;
            slot.handle = handle;
            slot.type = type;
            slot.offset = offset;
            slot.length = (int) length;
            int error = RequestCheck.check(type, flags, offset, length, size, maxPayload, device.readOnly(), session);
            if (error == 0 && (type == Nbd.CMD_READ || type == Nbd.CMD_WRITE) && attach(slot, (int) length) == null) {
                error = outOfMemory();
            }
            if (error != 0) {
                if (type == Nbd.CMD_WRITE) {
                    flushUnlessBuffered(length);
                    in.skip(length); // the payload follows the header whether we take it or not
                }
                pending = null;
                finish(slot, error);
                continue;
            }
            start(slot, flags, offset, length);
        }
    }

    /** Starts a checked request; {@code length} is the wire's unsigned 32 bits (READ and WRITE: at most the maximum payload). */
    private void start(RequestSlot slot, int flags, long offset, long length) throws IOException, InterruptedException {
        boolean fua = (flags & Nbd.CMD_FLAG_FUA) != 0;
        ByteBuffer data = slot.data == null ? null : slot.data.prepare((int) length);
        if (slot.type == Nbd.CMD_WRITE) {
            flushUnlessBuffered(length);
            in.readFully(data);
            data.flip();
        }
        pending = null;
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
                case Nbd.CMD_BLOCK_STATUS -> blockStatus(slot, flags, offset, length);
                default -> throw new IllegalStateException("unchecked command " + slot.type);
            }
        } catch (RuntimeException e) {
            // A device that throws has not completed the request (BlockDevice's contract): answer it
            // here, or the connection would wait for it forever when it ends.
            LOG.log(Level.WARNING, "nbd: device failed a request by throwing", e);
            finish(slot, Errno.EIO);
        } catch (OutOfMemoryError e) {
            finish(slot, outOfMemory());
        }
    }

    /**
     * Answers BLOCK_STATUS from the device's extents, written into the slot's own buffer; a device
     * that asks elsewhere (RNBD) completes it later from its own thread, like an IO.
     */
    private void blockStatus(RequestSlot slot, int flags, long offset, long length) throws InterruptedException {
        RequestSlot.DataBuffer payload = attach(slot, BlockStatusReply.MAX_PAYLOAD);
        if (payload == null) {
            finish(slot, outOfMemory());
            return;
        }
        if (slot.blockStatus == null) {
            slot.blockStatus = new BlockStatusReply(slot); // once per slot, the first time it carries a block status
        }
        slot.blockStatus.start(device, offset, length, (flags & Nbd.CMD_FLAG_REQ_ONE) != 0, payload.prepare(BlockStatusReply.MAX_PAYLOAD));
    }

    /** Counts and (once per connection) logs a request answered ENOMEM; returns ENOMEM. */
    private int outOfMemory() {
        resources.outOfMemoryReplies.incrementAndGet();
        if (!outOfMemoryLogged) {
            outOfMemoryLogged = true;
            LOG.log(Level.WARNING, "nbd: {0}: direct memory exhausted: answering ENOMEM (raise -XX:MaxDirectMemorySize"
                + " or lower --large-requests)", name);
        }
        return Errno.ENOMEM;
    }

    /**
     * Gives the slot a buffer for {@code length} bytes, growing its own or taking a large one;
     * null when there is no memory for it.
     */
    private RequestSlot.DataBuffer attach(RequestSlot slot, int length) throws InterruptedException {
        if (length > SLOT_BUFFER_MAX) {
            flush(); // our own large buffer may be in a held-back reply
            largeInUse.acquire();
            RequestSlot.DataBuffer b = resources.large.take(length, maxPayload);
            if (b == null) {
                largeInUse.release();
                return null;
            }
            slot.data = b;
            slot.borrowsLarge = true;
        } else {
            if (slot.own == null || slot.own.capacity() < length) {
                slot.own = null; // collectable while the larger one is made
                try {
                    slot.own = new RequestSlot.DataBuffer(grown(length, SLOT_BUFFER_MAX));
                } catch (OutOfMemoryError e) {
                    return null;
                }
            }
            slot.data = slot.own;
        }
        return slot.data;
    }

    static int grown(int length, int cap) {
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
     * Answers a request: on the reader's thread the answer is held back until the next
     * {@link #flush}, from any other thread it goes to the reply writer. Only a read's data and a
     * block status's extents travel with their reply; any other buffer comes back now.
     */
    void finish(RequestSlot slot, int error) {
        ByteBuffer reply;
        if (error == 0 && slot.type == Nbd.CMD_READ) {
            reply = readReply(slot);
        } else if (error == 0 && slot.type == Nbd.CMD_BLOCK_STATUS) {
            reply = BlockStatusReply.reply(slot);
        } else {
            releaseData(slot);
            reply = statusReply(slot, error);
        }
        if (Thread.currentThread() == reader) {
            batch[batched] = reply;
            batchSlots[batched++] = slot;
            if (batched == BATCH) {
                flush();
            }
            return;
        }
        slot.outgoing = reply;
        writer.add(slot);
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

    /** Frees a slot whose reply has been written (or dropped: the client is gone). */
    void release(RequestSlot slot) {
        releaseData(slot);
        slot.outgoing = null;
        slots.give(slot);
    }

    private void releaseData(RequestSlot slot) {
        if (slot.borrowsLarge) {
            slot.borrowsLarge = false;
            resources.large.give(slot.data);
            largeInUse.release();
        }
        slot.data = null;
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
