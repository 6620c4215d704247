package io.srdnic.nbd;

import io.srdnic.block.IoCompletion;
import java.nio.ByteBuffer;

/**
 * One request in flight: its handle and kind, its data buffer and the buffer its reply header is
 * written to. Slots are made once per connection and reused, and the slot itself is the
 * {@link IoCompletion} handed to the device, so a request allocates nothing once the buffers have
 * grown to the sizes the client uses.
 *
 * <p>The data buffer keeps {@link #HEADROOM} bytes in front of the data: a read's reply header is
 * written there, so header and data leave in one write call.
 */
final class RequestSlot implements IoCompletion {
    /** Room for the longest header in front of read data: a structured chunk header and its offset. */
    static final int HEADROOM = Nbd.STRUCTURED_HEADER_LENGTH + 8;

    private final Transmission owner;
    final ByteBuffer reply = ByteBuffer.allocateDirect(32);
    long handle;
    int type;
    long offset;
    int length;
    /** The buffer this request's data is in: the slot's own or one of the server's large ones. */
    DataBuffer data;
    /** Whether {@link #data} is one of the server's large buffers, to be given back when done with. */
    boolean borrowsLarge;
    /** Grown on demand up to {@link Transmission#SLOT_BUFFER_MAX}. */
    DataBuffer own;
    /** Fills and completes this slot's block statuses; made the first time it carries one. */
    BlockStatusReply blockStatus;
    /** The reply, from completion until it is written. */
    ByteBuffer outgoing;

    RequestSlot(Transmission owner) {
        this.owner = owner;
    }

    @Override
    public void complete(int error) {
        owner.finish(this, error);
    }

    /** A direct buffer with headroom, and a view of its data part handed to devices. */
    static final class DataBuffer {
        final ByteBuffer whole;
        final ByteBuffer view;

        DataBuffer(int capacity) {
            whole = ByteBuffer.allocateDirect(HEADROOM + capacity);
            view = whole.slice(HEADROOM, capacity);
        }

        int capacity() {
            return view.capacity();
        }

        /** The data view, positioned over the first {@code length} bytes. */
        ByteBuffer prepare(int length) {
            return view.clear().limit(length);
        }
    }
}
