package io.srdnic.netty;

import io.srdnic.verbs.Access;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One stream's registered memory: its receive buffers then its send slots, in one region so that a
 * refusal part way leaves nothing behind. Embedded, the region is the stream's own arena and goes
 * with it; attached, it comes from the context's shared pool, which never takes memory back, so a
 * closed stream's set is kept by the loop's {@link StreamBufferPool} for the next stream.
 */
final class StreamBuffers {
    static final long BYTES = (long) (RcStream.RECEIVES + RcStream.SEND_SLOTS) * RcStream.RECEIVE_SIZE;

    final MemoryRegion region;
    /** Null on an attached context: the pool's memory is not ours to free. */
    private final Arena arena;
    final ByteBuffer[] receiveViews = new ByteBuffer[RcStream.RECEIVES];
    final ByteBuffer[] sendViews = new ByteBuffer[RcStream.SEND_SLOTS];

    private StreamBuffers(MemoryRegion region, Arena arena) {
        this.region = region;
        this.arena = arena;
        MemorySegment all = region.segment();
        for (int i = 0; i < RcStream.RECEIVES; i++) {
            receiveViews[i] = all.asSlice(receiveOffset(i), RcStream.RECEIVE_SIZE).asByteBuffer();
        }
        for (int i = 0; i < RcStream.SEND_SLOTS; i++) {
            sendViews[i] = all.asSlice(sendOffset(i), RcStream.RECEIVE_SIZE).asByteBuffer();
        }
    }

    /** A new set: registered from an arena of its own (embedded), or taken from the shared pool (attached). */
    static StreamBuffers allocate(ProtectionDomain pd, boolean attached) {
        if (attached) {
            try {
                return new StreamBuffers(pd.allocateRegion(BYTES, Access.LOCAL_WRITE), null);
            } catch (VerbsException e) {
                throw new IllegalStateException("no room for another srdnic stream's buffers (" + BYTES + " bytes; close channels to"
                    + " free some): " + e.getMessage(), e);
            }
        }
        Arena arena = Arena.ofShared();
        try {
            return new StreamBuffers(pd.registerMemory(arena.allocate(BYTES, 4096), Access.LOCAL_WRITE), arena);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    static long receiveOffset(int slot) {
        return (long) slot * RcStream.RECEIVE_SIZE;
    }

    static long sendOffset(int slot) {
        return (long) (RcStream.RECEIVES + slot) * RcStream.RECEIVE_SIZE;
    }

    /** Whether the memory is the context's shared pool's (kept for reuse) rather than an arena of its own (freed). */
    boolean pooled() {
        return arena == null;
    }

    /** Deregisters and frees an embedded set. */
    void free() {
        region.deregister();
        if (arena != null) {
            arena.close();
        }
    }
}
