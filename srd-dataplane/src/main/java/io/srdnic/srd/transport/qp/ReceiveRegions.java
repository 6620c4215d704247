package io.srdnic.srd.transport.qp;

import java.lang.foreign.MemorySegment;

/** The memory regions as a posted receive sees them (the port's {@code MemoryRegions}, handed in). */
@FunctionalInterface
public interface ReceiveRegions {
    /** Whether region {@code lkey} (0: none named) still holds {@code [offset, offset + length)} of {@code buffer}. */
    boolean admits(int lkey, MemorySegment buffer, long offset, int length);
}
