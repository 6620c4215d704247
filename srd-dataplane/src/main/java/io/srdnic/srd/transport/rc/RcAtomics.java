package io.srdnic.srd.transport.rc;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * What an RC responder checks of an atomic request and how it runs one on its memory. The checks
 * come in rxe's order: the request's shape, then memory protection (the QP's access flags, then
 * the region's: rkey, protection domain, REMOTE_ATOMIC, the 8 bytes in bounds, writable memory), and only then the
 * alignment, a misaligned word being an invalid request (rxe's class C NAK) rather than an access
 * violation. The word is changed with the CPU's own atomic instruction through the memory
 * segment, as the application's threads may use it at the same time; it is a 64-bit integer in the
 * host's byte order, as in verbs.
 */
final class RcAtomics {
    /** A 64-bit word of a memory segment at a byte offset; its atomic modes need the word 8-byte aligned. */
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private RcAtomics() {
    }

    /**
     * The region an atomic request in {@code m} for {@code qp} may run on (its index, >= 0), or the
     * DropReason of its NAK, negated; {@code pd}: the protection domain it is checked against (the
     * QP's on RC, the named SRQ's on SRC).
     */
    static int check(MemoryRegions regions, DeviceQp qp, int pd, Mbuf m) {
        if (SrdHeader.payloadLength(m) != AtomicHeader.LENGTH) {
            return -DropReason.REMOTE_INVALID_REQUEST; // data after the header: not an atomic anyone sent
        }
        long address = AtomicHeader.address(m);
        int region = (qp.accessFlags & QpAttributes.ACCESS_REMOTE_ATOMIC) == 0 ? -1
            : regions.find(AtomicHeader.rkey(m), pd, address, SendOpcode.ATOMIC_SIZE, MemoryRegions.REMOTE_ATOMIC);
        if (region < 0 || regions.segment(region).isReadOnly()) {
            return -DropReason.REMOTE_ACCESS; // read-only memory: registered so, whatever its flags say
        }
        if ((address & (SendOpcode.ATOMIC_SIZE - 1)) != 0) {
            return -DropReason.REMOTE_INVALID_REQUEST;
        }
        return region;
    }

    /**
     * Runs the checked atomic in {@code m} on {@code region} (the one {@link #check} found) and
     * returns the word's original value. Throws IllegalStateException if the memory was freed.
     */
    static long execute(Mbuf m, MemoryRegions regions, int region) {
        MemorySegment memory = regions.segment(region);
        long offset = regions.offset(region, AtomicHeader.address(m));
        if (SrdHeader.type(m) == PacketType.ATOMIC_CMP_SWAP) {
            return (long) WORD.compareAndExchange(memory, offset, AtomicHeader.compare(m), AtomicHeader.swapOrAdd(m));
        }
        return (long) WORD.getAndAdd(memory, offset, AtomicHeader.swapOrAdd(m));
    }
}
