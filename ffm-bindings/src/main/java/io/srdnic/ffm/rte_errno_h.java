package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Error strings.
 * <p>Bindings to rte_errno.h, in the shape jextract generates: handles are created on first use.
 */
public final class rte_errno_h {
    private rte_errno_h() {
    }

    private static final class rte_strerror$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }
    /** The message for an errno or rte_errno value. */
    public static MemorySegment rte_strerror(int errnum) {
        try {
            return (MemorySegment) rte_strerror$.HANDLE.invokeExact(errnum);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_strerror", t);
        }
    }
    /** The downcall handle of rte_strerror, for callers that hold it in a static final. */
    public static MethodHandle rte_strerror$handle() {
        return rte_strerror$.HANDLE;
    }
}
