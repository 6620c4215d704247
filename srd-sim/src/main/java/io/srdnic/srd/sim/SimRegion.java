package io.srdnic.srd.sim;

import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.port.MemoryRegions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The memory a simulated host opens to RDMA ({@code srdnic sim --ops rdma-write,rdma-write-imm,rdma-read}):
 * one region registered with its transport for remote write and read, in protection domain 0 (its
 * QPs'). It starts with a read area holding a pattern written once and never again, which RDMA
 * READs fetch and the reader checks; then one write area per host that sends to this one, a slot
 * per send-queue entry of that sender, so that no two writes outstanding at once touch the same
 * bytes. The memory outlives the transport: a restarted host registers it again and the senders
 * to it use the key it publishes then (its address stays).
 */
final class SimRegion {
    /** The read area spans the message size and this much more: reads start at offsets spread over it. */
    static final int READ_SPREAD = 4096;

    final MemorySegment memory;
    private final int host;
    private final int readAreaLength;
    private final int slotSize;
    /** The rkey of the live registration: what senders to this host put in their requests. */
    int publishedRkey;

    SimRegion(Arena arena, int host, int messageSize, int writers) {
        this.host = host;
        this.readAreaLength = messageSize + READ_SPREAD;
        this.slotSize = Math.max(8, messageSize);
        this.memory = arena.allocate(readAreaLength + (long) writers * SimHost.SQ_DEPTH * slotSize, 64);
        for (int offset = 0; offset < readAreaLength; offset++) {
            memory.set(ValueLayout.JAVA_BYTE, offset, patternAt(offset));
        }
    }

    /** Registers the memory with a (new) transport of this host and publishes the key. */
    void register(TransportDevice transport) {
        publishedRkey = transport.regions().register(memory, 0, MemoryRegions.REMOTE_WRITE | MemoryRegions.REMOTE_READ);
    }

    /** Where message {@code seq}'s READ starts in the region: spread over the read area, so a read from the wrong place shows. */
    long readOffset(long seq) {
        return Math.floorMod(seq * 8 + seq / 7, (long) READ_SPREAD + 1);
    }

    /** Where the write a sender makes from its send-queue entry {@code slot} lands: its {@code writer}'s area, that slot. */
    long writeOffset(int writer, int slot) {
        return readAreaLength + ((long) writer * SimHost.SQ_DEPTH + slot) * slotSize;
    }

    /** The {@code length} bytes at {@code offset} of the region, as the remote side sees them. */
    MemorySegment bytes(long offset, int length) {
        return memory.asSlice(offset, length);
    }

    /** The native address of {@code offset}: what an RDMA request names (verbs uses virtual addresses). */
    long address(long offset) {
        return memory.address() + offset;
    }

    /** The read area's byte at {@code offset}: a function of the host and the offset, with no short period. */
    private byte patternAt(int offset) {
        return (byte) (offset * 131 + (offset >>> 8) * 7 + host * 29 + 1);
    }
}
