package io.srdnic.srd.transport.port;

import io.srdnic.pmd.ExternalBuffers;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.counters.SrdCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Where a transport's outgoing frames are made and leave: mbufs come from the pool a burst at a
 * time (one allocation downcall per burst, not per frame), and built frames go out together in one
 * transmit downcall when the burst is full or the duty cycle flushes it.
 * <p>
 * Where the port allows it ({@link PacketIo#transmitsExternalBuffers}), a packet's payload may leave
 * from the sender's registered memory itself: {@link #attach} gives an mbuf pointing at it, held
 * on a ticket until the driver frees that mbuf; {@link #pollReleased} (once per duty cycle) tells
 * the owner which holds have ended. No Java runs when the driver frees: the shim's callback only
 * marks the ticket.
 */
public final class TxBurst implements AutoCloseable {
    private final PacketIo io;
    private final SrdCounters counters;
    private final MbufBatch batch;
    private final MbufBatch spare;
    /** The one view the transport writes frames through (reused: nothing allocated per frame). */
    public final Mbuf view = new Mbuf();
    /** The view of an external buffer's mbuf ({@link #attach}). */
    public final Mbuf external = new Mbuf();
    /** Enough for a NIC's whole TX ring of frames freed late, and more than memif ever holds (none past a burst). */
    static final int TICKETS = 4096;
    /** The holds on memory the driver may still read; null where the port takes no external buffers. */
    private final ExternalBuffers tickets;
    /**
     * The tickets' own memory (their shared info and done marks), apart from the transport's: the
     * driver writes a mark when it frees a frame, so while it still holds one this memory must stay.
     */
    private final Arena ticketMemory;
    /**
     * Who each held ticket is for, in ticket order (tickets are taken and given back in order, so a
     * ring beside theirs): SRD's request table and each RC QP hold memory apart.
     */
    private final ExternalBuffers.Released[] owners;
    private long ownersHead;
    private long ownersTail;
    /** Hands each released ticket to its own owner (made once: nothing allocated per release). */
    private final ExternalBuffers.Released toOwner = this::toOwner;

    public TxBurst(PacketIo io, Arena arena, int burst, SrdCounters counters) {
        this.io = io;
        this.counters = counters;
        this.batch = new MbufBatch(arena, burst);
        this.spare = new MbufBatch(arena, burst);
        this.ticketMemory = io.transmitsExternalBuffers() ? Arena.ofShared() : null;
        this.tickets = ticketMemory != null ? new ExternalBuffers(ticketMemory, TICKETS, io.externalBufferFreeCallback()) : null;
        this.owners = new ExternalBuffers.Released[tickets != null ? tickets.capacity() : 0];
    }

    /** Whether packets may leave from the sender's memory ({@link #attach}). */
    public boolean sendsExternalBuffers() {
        return tickets != null;
    }

    /**
     * An mbuf whose data is the {@code bytes} bytes at {@code from} of {@code buffer}, held until the
     * driver frees it (viewed through {@link #external}), the release going to {@code to} with
     * {@code token}; 0 (copy instead) when no mbuf or no ticket is left, or for heap or closed memory
     * or bytes outside the segment.
     */
    public long attach(MemorySegment buffer, long from, int bytes, ExternalBuffers.Released to, int token) {
        if (!buffer.isNative() || !buffer.scope().isAlive() || from < 0 || from + bytes > buffer.byteSize()) {
            return 0;
        }
        return attach(buffer.address() + from, bytes, to, token);
    }

    private long attach(long address, int bytes, ExternalBuffers.Released to, int token) {
        long info = tickets.acquire(token, address, bytes);
        if (info == 0) {
            return 0;
        }
        long m = take();
        if (m == 0) {
            tickets.cancelNewest();
            return 0;
        }
        owners[(int) (ownersTail++ & (owners.length - 1))] = to;
        external.wrap(m).attachExternal(address, bytes, info);
        return m;
    }

    private void toOwner(int token) {
        int i = (int) (ownersHead++ & (owners.length - 1));
        ExternalBuffers.Released to = owners[i];
        owners[i] = null; // a destroyed QP's half is not kept alive by a ticket already back
        to.released(token);
    }

    /** Tells the owner of each hold the driver has let go since the last call; returns how many. Once per duty cycle. */
    public int pollReleased() {
        return tickets == null || tickets.outstanding() == 0 ? 0 : tickets.poll(toOwner);
    }

    /**
     * Before memory goes (a region deregistered, a QP destroyed): sends what is queued, asks the
     * driver to free what it has sent, and hears the releases. Returns whether the driver still reads
     * any of the {@code bytes} bytes at {@code address}.
     */
    public boolean stillReads(long address, long bytes) {
        reclaim();
        return tickets != null && tickets.outstanding() > 0 && tickets.holdsMemory(address, bytes);
    }

    /** Sends what is queued, asks the driver to free what it has sent, and tells the owners what it let go. */
    public void reclaim() {
        if (tickets != null && tickets.outstanding() > 0) {
            flush();
            io.reclaimTransmitted();
            pollReleased();
        }
    }

    /** Holds not yet released: frames whose memory the driver may still read. */
    public int heldExternalBuffers() {
        return tickets == null ? 0 : tickets.outstanding();
    }

    /** An mbuf for the next frame, or 0 when the pool has none (counted as {@code no_mbuf}). */
    public long take() {
        if (spare.isEmpty() && io.allocate(spare, spare.capacity()) == 0 && io.allocate(spare, 1) == 0) {
            counters.noMbuf++;
            return 0;
        }
        return spare.removeAt(spare.count() - 1);
    }

    /** Returns an mbuf taken but not sent. */
    public void giveBack(long address) {
        spare.add(address);
    }

    /** Queues a built frame; a full burst leaves at once. */
    public void emit(long address) {
        batch.add(address);
        if (batch.isFull()) {
            flush();
        }
    }

    /** Sends what is queued (one downcall). */
    public void flush() {
        if (!batch.isEmpty()) {
            io.transmit(batch);
        }
    }

    public boolean isEmpty() {
        return batch.isEmpty();
    }

    /**
     * Sends what is queued and returns the spare mbufs to the pool; first asks the driver to free what
     * it still holds of the application's memory, since the tickets its free callback marks go with
     * the transport's memory.
     */
    @Override
    public void close() {
        reclaim();
        flush();
        io.free(spare);
        if (ticketMemory != null && tickets.outstanding() == 0) {
            ticketMemory.close();
        }
        // else a driver that cannot be made to free still holds frames: their tickets' memory is left
        // to the process (a few hundred KB at most), so that its late free marks live memory, not freed.
    }
}
