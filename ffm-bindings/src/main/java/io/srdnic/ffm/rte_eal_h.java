package io.srdnic.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Environment abstraction layer: init, cleanup, lcores, threads, device hot-plug.
 * <p>Bindings to rte_eal.h, rte_lcore.h, rte_dev.h, in the shape jextract generates: handles are created on first use.
 */
public final class rte_eal_h {
    private rte_eal_h() {
    }

    private static final class rte_eal_init$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eal_init", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }
    /** Initialises EAL; returns the number of parsed arguments or -1 (see rte_errno). */
    public static int rte_eal_init(int argc, MemorySegment argv) {
        try {
            return (int) rte_eal_init$.HANDLE.invokeExact(argc, argv);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eal_init", t);
        }
    }
    /** The downcall handle of rte_eal_init, for callers that hold it in a static final. */
    public static MethodHandle rte_eal_init$handle() {
        return rte_eal_init$.HANDLE;
    }
    private static final class rte_eal_cleanup$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eal_cleanup", FunctionDescriptor.of(JAVA_INT));
    }
    /** Releases EAL resources; once per process. */
    public static int rte_eal_cleanup() {
        try {
            return (int) rte_eal_cleanup$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eal_cleanup", t);
        }
    }
    /** The downcall handle of rte_eal_cleanup, for callers that hold it in a static final. */
    public static MethodHandle rte_eal_cleanup$handle() {
        return rte_eal_cleanup$.HANDLE;
    }
    private static final class rte_eal_get_runtime_dir$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eal_get_runtime_dir", FunctionDescriptor.of(ADDRESS));
    }
    /** The runtime directory EAL created (under /var/run/dpdk or $XDG_RUNTIME_DIR/dpdk). */
    public static MemorySegment rte_eal_get_runtime_dir() {
        try {
            return (MemorySegment) rte_eal_get_runtime_dir$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eal_get_runtime_dir", t);
        }
    }
    /** The downcall handle of rte_eal_get_runtime_dir, for callers that hold it in a static final. */
    public static MethodHandle rte_eal_get_runtime_dir$handle() {
        return rte_eal_get_runtime_dir$.HANDLE;
    }
    private static final class rte_thread_register$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_thread_register", FunctionDescriptor.of(JAVA_INT));
    }
    /** Gives the calling non-EAL thread an lcore id, so mempool caches work on it. */
    public static int rte_thread_register() {
        try {
            return (int) rte_thread_register$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_thread_register", t);
        }
    }
    /** The downcall handle of rte_thread_register, for callers that hold it in a static final. */
    public static MethodHandle rte_thread_register$handle() {
        return rte_thread_register$.HANDLE;
    }
    private static final class rte_thread_unregister$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_thread_unregister", FunctionDescriptor.ofVoid());
    }
    /** Releases the lcore id of the calling thread. */
    public static void rte_thread_unregister() {
        try {
            rte_thread_unregister$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_thread_unregister", t);
        }
    }
    /** The downcall handle of rte_thread_unregister, for callers that hold it in a static final. */
    public static MethodHandle rte_thread_unregister$handle() {
        return rte_thread_unregister$.HANDLE;
    }
    private static final class rte_lcore_count$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_lcore_count", FunctionDescriptor.of(JAVA_INT));
    }
    /** Number of enabled lcores. */
    public static int rte_lcore_count() {
        try {
            return (int) rte_lcore_count$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_lcore_count", t);
        }
    }
    /** The downcall handle of rte_lcore_count, for callers that hold it in a static final. */
    public static MethodHandle rte_lcore_count$handle() {
        return rte_lcore_count$.HANDLE;
    }
    private static final class rte_get_main_lcore$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_get_main_lcore", FunctionDescriptor.of(JAVA_INT));
    }
    /** The main lcore id. */
    public static int rte_get_main_lcore() {
        try {
            return (int) rte_get_main_lcore$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_get_main_lcore", t);
        }
    }
    /** The downcall handle of rte_get_main_lcore, for callers that hold it in a static final. */
    public static MethodHandle rte_get_main_lcore$handle() {
        return rte_get_main_lcore$.HANDLE;
    }
    private static final class rte_socket_id$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_socket_id", FunctionDescriptor.of(JAVA_INT));
    }
    /** NUMA socket of the calling thread. */
    public static int rte_socket_id() {
        try {
            return (int) rte_socket_id$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_socket_id", t);
        }
    }
    /** The downcall handle of rte_socket_id, for callers that hold it in a static final. */
    public static MethodHandle rte_socket_id$handle() {
        return rte_socket_id$.HANDLE;
    }
    private static final class rte_dev_probe$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_dev_probe", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }
    /** Hot-plugs a device by its devargs string (for example a vdev spec). */
    public static int rte_dev_probe(MemorySegment devargs) {
        try {
            return (int) rte_dev_probe$.HANDLE.invokeExact(devargs);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_dev_probe", t);
        }
    }
    /** The downcall handle of rte_dev_probe, for callers that hold it in a static final. */
    public static MethodHandle rte_dev_probe$handle() {
        return rte_dev_probe$.HANDLE;
    }
    private static final class rte_eal_hotplug_remove$ {
        static final MethodHandle HANDLE = Dpdk.downcall("rte_eal_hotplug_remove", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }
    /** Removes a hot-plugged device. */
    public static int rte_eal_hotplug_remove(MemorySegment busname, MemorySegment devname) {
        try {
            return (int) rte_eal_hotplug_remove$.HANDLE.invokeExact(busname, devname);
        } catch (Throwable t) {
            throw Dpdk.unexpected("rte_eal_hotplug_remove", t);
        }
    }
    /** The downcall handle of rte_eal_hotplug_remove, for callers that hold it in a static final. */
    public static MethodHandle rte_eal_hotplug_remove$handle() {
        return rte_eal_hotplug_remove$.HANDLE;
    }
}
