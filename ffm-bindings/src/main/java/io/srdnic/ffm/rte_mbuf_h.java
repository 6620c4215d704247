package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Packet mbuf pools.
 * <p>Bindings to rte_mbuf.h, in the shape jextract generates: handles are created on first use.
 */
public final class rte_mbuf_h {
    private rte_mbuf_h() {
    }

    private static final class rte_pktmbuf_pool_create$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_pktmbuf_pool_create",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_SHORT, JAVA_SHORT, JAVA_INT));
    }
    /** Creates a pool of packet mbufs; NULL on failure (see rte_errno). */
    public static MemorySegment rte_pktmbuf_pool_create(MemorySegment name, int n, int cache_size, short priv_size, short data_room_size,
            int socket_id) {
        try {
            return (MemorySegment) rte_pktmbuf_pool_create$.HANDLE.invokeExact(name, n, cache_size, priv_size, data_room_size, socket_id);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_pktmbuf_pool_create", t);
        }
    }
    /** The downcall handle of rte_pktmbuf_pool_create, for callers that hold it in a static final. */
    public static MethodHandle rte_pktmbuf_pool_create$handle() {
        return rte_pktmbuf_pool_create$.HANDLE;
    }
}
