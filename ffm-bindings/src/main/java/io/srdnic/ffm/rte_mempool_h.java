package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Memory pools.
 * <p>Bindings to rte_mempool.h, in the shape jextract generates: handles are created on first use.
 */
public final class rte_mempool_h {
    private rte_mempool_h() {
    }

    private static final class rte_mempool_free$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_mempool_free", FunctionDescriptor.ofVoid(ADDRESS));
    }
    /** Frees a mempool; its objects must all have been returned. */
    public static void rte_mempool_free(MemorySegment mp) {
        try {
            rte_mempool_free$.HANDLE.invokeExact(mp);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_mempool_free", t);
        }
    }
    /** The downcall handle of rte_mempool_free, for callers that hold it in a static final. */
    public static MethodHandle rte_mempool_free$handle() {
        return rte_mempool_free$.HANDLE;
    }
    private static final class rte_mempool_avail_count$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_mempool_avail_count", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }
    /** Objects currently in the pool (including per-lcore caches). */
    public static int rte_mempool_avail_count(MemorySegment mp) {
        try {
            return (int) rte_mempool_avail_count$.HANDLE.invokeExact(mp);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_mempool_avail_count", t);
        }
    }
    /** The downcall handle of rte_mempool_avail_count, for callers that hold it in a static final. */
    public static MethodHandle rte_mempool_avail_count$handle() {
        return rte_mempool_avail_count$.HANDLE;
    }
    private static final class rte_mempool_in_use_count$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_mempool_in_use_count", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }
    /** Objects currently taken from the pool. */
    public static int rte_mempool_in_use_count(MemorySegment mp) {
        try {
            return (int) rte_mempool_in_use_count$.HANDLE.invokeExact(mp);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_mempool_in_use_count", t);
        }
    }
    /** The downcall handle of rte_mempool_in_use_count, for callers that hold it in a static final. */
    public static MethodHandle rte_mempool_in_use_count$handle() {
        return rte_mempool_in_use_count$.HANDLE;
    }
}
