package io.srdnic.srd.transport.port;

import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;

/**
 * The buffers every RC and SRC responder of a transport keeps early packets in, shared: a QP that
 * holds nothing holds no memory, and the transport's whole reorder memory is bounded by
 * {@link TransportConfig#rcHeldPackets()} slots whatever the number of QPs. (One pool per QP, a slot per
 * PSN of its window, cost 1.1 MB per QP that ever saw reordering: an all-to-all of 64 nodes with 4
 * jobs each over SRC ran out of 3 GB of direct memory.) The buffers are mbuf-shaped
 * ({@link SimBufferPool}), so a held packet runs through the code that runs one off the wire. They
 * are made at the first hold. With every slot taken, an early packet is not held: it is dropped
 * unacknowledged and counted ({@code rc_held_pool_full}), and the requester sends it again.
 */
public final class HeldPacketPool {
    private final int capacity;
    private final int frameRoom;
    private SimBufferPool pool;
    private MbufBatch one;
    private int inUse;

    public HeldPacketPool(int capacity, int frameRoom) {
        this.capacity = capacity;
        this.frameRoom = frameRoom;
    }

    /** The largest frame a slot holds. */
    public int frameRoom() {
        return frameRoom;
    }

    /** A free slot's mbuf address, or 0 when every slot is taken. */
    public long take() {
        if (inUse == capacity) {
            return 0;
        }
        if (pool == null) {
            pool = new SimBufferPool(Arena.ofAuto(), capacity, frameRoom);
            one = new MbufBatch(Arena.ofAuto(), 1);
        }
        one.clear();
        if (pool.allocate(one, 1, 0) == 0) {
            return 0;
        }
        inUse++;
        return one.address(0);
    }

    public void give(long address) {
        pool.free(address);
        inUse--;
    }

    public int inUse() {
        return inUse;
    }

    public boolean isFull() {
        return inUse == capacity;
    }
}
