package io.srdnic.srd.transport;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;

/**
 * An RC responder's reorder buffer: copies of packets that arrived ahead of the PSN it expects,
 * one slot per PSN of the window, executed once the gap before them fills. The copies are
 * mbuf-shaped buffers (the simulator's {@link SimBufferPool}, which lays out {@code rte_mbuf}s in
 * plain memory), so a held packet is executed later by the very code that executes one straight
 * off the wire, and the receive burst's mbufs go back to DPDK at once. The buffers are allocated
 * the first time a packet comes early: a QP whose packets always arrive in order costs none.
 */
final class RcReorderBuffer {
    private final int mask;
    private final int frameRoom;
    private final long[] address;
    private int count;
    private SimBufferPool pool;
    private MbufBatch one;
    private final Mbuf view = new Mbuf();

    RcReorderBuffer(int window, int frameRoom) {
        this.mask = window - 1;
        this.frameRoom = frameRoom;
        this.address = new long[window];
    }

    int count() {
        return count;
    }

    boolean holds(int psn) {
        return address[psn & mask] != 0;
    }

    /** Keeps a copy of {@code m} as packet {@code psn}; false (nothing kept) if it is already held or does not fit a slot. */
    boolean put(Mbuf m, int psn) {
        int i = psn & mask;
        int length = m.dataLength();
        if (address[i] != 0 || m.segmentCount() != 1 || length > frameRoom) {
            return false;
        }
        if (pool == null) {
            pool = new SimBufferPool(Arena.ofAuto(), mask + 1, frameRoom);
            one = new MbufBatch(Arena.ofAuto(), 1);
        }
        one.clear();
        if (pool.allocate(one, 1, 0) == 0) {
            return false; // cannot happen: one buffer per slot
        }
        long a = one.address(0);
        view.wrap(a).copyFrom(m, 0, 0, length).frameLength(length);
        address[i] = a;
        count++;
        return true;
    }

    /** The held packet {@code psn} (it is held), as a flyweight valid until the next call. */
    Mbuf get(int psn) {
        return view.wrap(address[psn & mask]);
    }

    void remove(int psn) {
        int i = psn & mask;
        if (address[i] == 0) {
            return;
        }
        pool.free(address[i]);
        address[i] = 0;
        count--;
    }

    void clear() {
        for (int i = 0; i <= mask && count > 0; i++) {
            if (address[i] != 0) {
                pool.free(address[i]);
                address[i] = 0;
                count--;
            }
        }
    }

    /**
     * 64 bits of selective acknowledgement after {@code expected} (the PSN awaited): bit i of word w
     * set when PSN expected + 1 + 64w + i is held.
     */
    long sackWord(int expected, int word) {
        if (count == 0) {
            return 0;
        }
        long bits = 0;
        for (int b = 0; b < 64; b++) {
            int d = 1 + 64 * word + b;
            if (d <= mask && address[(expected + d) & mask] != 0) {
                bits |= 1L << b;
            }
        }
        return bits;
    }
}
