package io.srdnic.srd.transport.device;

import java.util.function.IntConsumer;

/**
 * For {@link TransportCounters}: the table slots (of contexts, of QPs) whose counters exist, and
 * which of them the current export found alive, so that those gone since are freed by one sweep
 * over what was exported — never a pass over the whole table. Allocates nothing.
 */
final class ExportedSlots {
    private final int[] slots;
    private final boolean[] seen;
    private int count;

    ExportedSlots(int tableSize) {
        slots = new int[tableSize];
        seen = new boolean[tableSize];
    }

    /** {@code slot} has counters now (it had none). */
    void add(int slot) {
        slots[count++] = slot;
    }

    /** This export found {@code slot} alive. */
    void markSeen(int slot) {
        seen[slot] = true;
    }

    /** Hands every exported slot this export did not see to {@code gone} and forgets it; starts the next export afresh. */
    void sweep(IntConsumer gone) {
        for (int i = 0; i < count; ) {
            int slot = slots[i];
            if (seen[slot]) {
                seen[slot] = false;
                i++;
            } else {
                slots[i] = slots[--count];
                gone.accept(slot);
            }
        }
    }
}
