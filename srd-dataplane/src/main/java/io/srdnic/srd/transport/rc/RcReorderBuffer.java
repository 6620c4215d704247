package io.srdnic.srd.transport.rc;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.transport.port.AckWriter;
import io.srdnic.srd.transport.port.HeldPacketPool;

/**
 * An RC responder's reorder buffer: copies of packets that arrived ahead of the PSN it expects,
 * at most one per PSN of the window, executed once the gap before them fills. The copies live in
 * the transport's {@link HeldPacketPool}, shared by every responder, so the receive burst's mbufs
 * go back to DPDK at once and a QP whose packets always arrive in order costs no buffer memory.
 */
final class RcReorderBuffer implements AckWriter.SackSource {
    private final int mask;
    private final HeldPacketPool pool;
    private final long[] address;
    private int count;
    private final Mbuf view = new Mbuf();

    RcReorderBuffer(int window, HeldPacketPool pool) {
        this.mask = window - 1;
        this.pool = pool;
        this.address = new long[window];
    }

    int count() {
        return count;
    }

    boolean holds(int psn) {
        return address[psn & mask] != 0;
    }

    /**
     * Keeps a copy of {@code m} as packet {@code psn}; false (nothing kept) if it is already held,
     * does not fit a slot, or the transport's pool has no slot free ({@link HeldPacketPool#isFull}).
     */
    boolean put(Mbuf m, int psn) {
        int i = psn & mask;
        int length = m.dataLength();
        if (address[i] != 0 || m.segmentCount() != 1 || length > pool.frameRoom()) {
            return false;
        }
        long a = pool.take();
        if (a == 0) {
            return false;
        }
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
        pool.give(address[i]);
        address[i] = 0;
        count--;
    }

    void clear() {
        for (int i = 0; i <= mask && count > 0; i++) {
            if (address[i] != 0) {
                pool.give(address[i]);
                address[i] = 0;
                count--;
            }
        }
    }

    /**
     * 64 bits of selective acknowledgement after {@code expected} (the PSN awaited): bit i of word w
     * set when PSN expected + 1 + 64w + i is held.
     */
    @Override
    public long sackWord(int expected, int word) {
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
