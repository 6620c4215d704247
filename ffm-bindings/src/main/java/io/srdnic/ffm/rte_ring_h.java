package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Lock-free rings (used to build net_ring port pairs).
 * <p>Bindings to rte_ring.h, in the shape jextract generates: handles are created on first use.
 */
public final class rte_ring_h {
    private rte_ring_h() {
    }

    /** Single-producer enqueue. */
    public static final int RING_F_SP_ENQ = 0x0001;
    /** Single-consumer dequeue. */
    public static final int RING_F_SC_DEQ = 0x0002;

    private static final class rte_ring_create$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_ring_create",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
    }
    /** Creates a ring; NULL on failure (see rte_errno). */
    public static MemorySegment rte_ring_create(MemorySegment name, int count, int socket_id, int flags) {
        try {
            return (MemorySegment) rte_ring_create$.HANDLE.invokeExact(name, count, socket_id, flags);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_ring_create", t);
        }
    }
    /** The downcall handle of rte_ring_create, for callers that hold it in a static final. */
    public static MethodHandle rte_ring_create$handle() {
        return rte_ring_create$.HANDLE;
    }
    private static final class rte_ring_free$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_ring_free", FunctionDescriptor.ofVoid(ADDRESS));
    }
    /** Frees a ring. */
    public static void rte_ring_free(MemorySegment r) {
        try {
            rte_ring_free$.HANDLE.invokeExact(r);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_ring_free", t);
        }
    }
    /** The downcall handle of rte_ring_free, for callers that hold it in a static final. */
    public static MethodHandle rte_ring_free$handle() {
        return rte_ring_free$.HANDLE;
    }
}
