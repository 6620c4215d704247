package io.srdnic.srd.transport.device;

import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.transport.port.WorkRequest;
import java.lang.foreign.MemorySegment;

/**
 * The work requests the device tests post to {@link TransportDevice#post}: each a new one, signaled,
 * its local memory named; the rest named with {@link WorkRequest}'s setters at the call, e.g.
 * {@code a.post(qp, send(1, msg, 0, 8).to(ah, qpn, QKEY))} or
 * {@code request(2, SendOpcode.RDMA_WRITE, buf, 0, 64).remote(address, rkey)}.
 */
final class Requests {
    private Requests() {
    }

    /** A SEND of {@code length} bytes at {@code offset} in {@code buffer}. */
    static WorkRequest send(long wrId, MemorySegment buffer, long offset, int length) {
        return request(wrId, SendOpcode.SEND, buffer, offset, length);
    }

    /** A request of {@code opcode} on {@code length} bytes at {@code offset} in {@code buffer}. */
    static WorkRequest request(long wrId, int opcode, MemorySegment buffer, long offset, int length) {
        return new WorkRequest().wrId(wrId).opcode(opcode).buffer(buffer, offset, length).signaled(true);
    }

    /** An atomic of {@code opcode}, the word's original value to land in the 8 bytes at {@code offset} in {@code buffer}. */
    static WorkRequest atomic(long wrId, int opcode, MemorySegment buffer, long offset) {
        return request(wrId, opcode, buffer, offset, SendOpcode.ATOMIC_SIZE);
    }
}
