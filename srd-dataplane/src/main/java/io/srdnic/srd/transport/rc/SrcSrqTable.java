package io.srdnic.srd.transport.rc;

import io.srdnic.srd.transport.port.LongIntMap;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import java.util.Arrays;

/**
 * The SRC SRQs of one transport by the number SRC packets name them with: the responder's lookup,
 * one per packet, allocating nothing. Numbers are 1..0xFFFFFF and unique; a destroyed SRQ's number
 * names nothing until an SRQ is created with it again.
 */
public final class SrcSrqTable {
    private static final int MAX_NUMBER = 0xFF_FFFF;

    private final LongIntMap slotOf = new LongIntMap(64);
    private SharedReceiveQueue[] srqs = new SharedReceiveQueue[64];
    private int[] freeSlots = new int[64];
    private int freeCount;
    private int used;
    private int lastFree;

    /** The SRQ numbered {@code number}, or null. */
    public SharedReceiveQueue get(int number) {
        int slot = slotOf.get(number & 0xFFFF_FFFFL);
        return slot < 0 ? null : srqs[slot];
    }

    /** Makes {@code srq} reachable by its number; throws if another SRQ has that number. */
    public void put(SharedReceiveQueue srq) {
        SharedReceiveQueue other = get(srq.srcSrqNumber());
        if (other != null) {
            throw new IllegalArgumentException("SRC SRQ number " + srq.srcSrqNumber() + " is already used by SRQ " + other.srqn()
                + " of this device: choose another (freeSrcSrqNumber() gives one)");
        }
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            if (used == srqs.length) {
                srqs = Arrays.copyOf(srqs, used * 2);
                freeSlots = Arrays.copyOf(freeSlots, used * 2);
            }
            slot = used++;
        }
        srqs[slot] = srq;
        slotOf.put(srq.srcSrqNumber(), slot);
    }

    public void remove(SharedReceiveQueue srq) {
        int slot = slotOf.get(srq.srcSrqNumber());
        if (slot >= 0 && srqs[slot] == srq) {
            srqs[slot] = null;
            slotOf.remove(srq.srcSrqNumber());
            freeSlots[freeCount++] = slot;
        }
    }

    /** A number no SRQ of this table has (control path: walks on from the last one given). */
    public int freeNumber() {
        for (int i = 0; i < MAX_NUMBER; i++) {
            lastFree = lastFree % MAX_NUMBER + 1;
            if (get(lastFree) == null) {
                return lastFree;
            }
        }
        throw new IllegalStateException("every SRC SRQ number is in use");
    }
}
