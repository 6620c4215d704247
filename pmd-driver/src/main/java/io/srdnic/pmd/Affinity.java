package io.srdnic.pmd;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Pins the calling thread to one CPU with libc's {@code sched_setaffinity(0, ...)}, as EAL pins the
 * lcore threads testpmd forwards on. Control path only.
 */
@SuppressWarnings("restricted") // native access is granted at launch: --enable-native-access=ALL-UNNAMED
public final class Affinity {
    private static final int CPU_SETSIZE_BYTES = 128; // glibc cpu_set_t: 1024 bits
    private static final MethodHandle SCHED_SETAFFINITY = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("sched_setaffinity").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));

    private Affinity() {
    }

    /** Pins the calling thread to {@code cpu}; throws with advice if the kernel refuses. */
    public static void pinCurrentThread(int cpu) {
        if (cpu < 0 || cpu >= CPU_SETSIZE_BYTES * 8) {
            throw new IllegalArgumentException("cpu " + cpu + " out of range");
        }
        int rc;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(CPU_SETSIZE_BYTES);
            set.set(java.lang.foreign.ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
            rc = (int) SCHED_SETAFFINITY.invokeExact(0, (long) CPU_SETSIZE_BYTES, set);
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity failed", t);
        }
        if (rc != 0) {
            throw new IllegalStateException("cannot pin the thread to CPU " + cpu + " (is it online and in this process's cpuset? see taskset -p "
                + ProcessHandle.current().pid() + ")");
        }
    }
}
