package io.srdnic.pmd;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

/**
 * Pins the calling thread to one CPU with libc's {@code sched_setaffinity(0, ...)}, as EAL pins the
 * lcore threads testpmd forwards on, and puts a thread's CPU set back. Control path only.
 */
@SuppressWarnings("restricted") // native access is granted at launch: --enable-native-access=ALL-UNNAMED
public final class Affinity {
    private static final int CPU_SETSIZE_BYTES = 128; // glibc cpu_set_t: 1024 bits
    private static final MethodHandle SCHED_SETAFFINITY = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("sched_setaffinity").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    private static final MethodHandle SCHED_GETAFFINITY = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("sched_getaffinity").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));

    private Affinity() {
    }

    /** Pins the calling thread to {@code cpu}; throws with advice if the kernel refuses. */
    public static void pinCurrentThread(int cpu) {
        if (cpu < 0 || cpu >= CPU_SETSIZE_BYTES * 8) {
            throw new IllegalArgumentException("cpu " + cpu + " out of range");
        }
        byte[] set = new byte[CPU_SETSIZE_BYTES];
        set[cpu / 8] = (byte) (1 << (cpu % 8));
        if (!setCurrentThread(set)) {
            throw new IllegalStateException("cannot pin the thread to CPU " + cpu
                    + " (is it online and in this process's cpuset? see taskset -p "
                + ProcessHandle.current().pid() + ")");
        }
    }

    /** The calling thread's CPU set, for {@link #restoreCurrentThread} (a thread that pins itself for a while puts it back). */
    public static byte[] currentThreadCpus() {
        return cpusOf(0);
    }

    /**
     * The process's CPU set: its first thread's (the one the kernel started, whose affinity is what
     * the process was launched with, taskset or cpuset), whatever the calling thread was pinned to.
     */
    public static byte[] processCpus() {
        return cpusOf((int) ProcessHandle.current().pid());
    }

    /** sched_getaffinity of thread {@code tid} (0: the calling one). */
    private static byte[] cpusOf(int tid) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(CPU_SETSIZE_BYTES);
            int rc = (int) SCHED_GETAFFINITY.invokeExact(tid, (long) CPU_SETSIZE_BYTES, set);
            if (rc != 0) {
                throw new IllegalStateException("sched_getaffinity failed");
            }
            return set.toArray(ValueLayout.JAVA_BYTE);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_getaffinity failed", t);
        }
    }

    /** The CPUs in either set. */
    public static byte[] union(byte[] a, byte[] b) {
        byte[] u = Arrays.copyOf(a, Math.max(a.length, b.length));
        for (int i = 0; i < b.length; i++) {
            u[i] |= b[i];
        }
        return u;
    }

    /** Gives the calling thread back a CPU set {@link #currentThreadCpus} returned. */
    public static void restoreCurrentThread(byte[] cpus) {
        if (!setCurrentThread(cpus)) {
            throw new IllegalStateException("cannot restore the thread's CPU set");
        }
    }

    /** A CPU set as a list of CPUs and ranges ("1", "0-1", "0,2-4"), the form EAL's --lcores takes. */
    public static String cpuList(byte[] cpus) {
        StringBuilder list = new StringBuilder();
        int bits = cpus.length * 8;
        for (int cpu = 0; cpu < bits; cpu++) {
            if (!isSet(cpus, cpu)) {
                continue;
            }
            int last = cpu;
            while (last + 1 < bits && isSet(cpus, last + 1)) {
                last++;
            }
            list.append(list.isEmpty() ? "" : ",").append(cpu).append(last > cpu ? "-" + last : "");
            cpu = last;
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("an empty CPU set");
        }
        return list.toString();
    }

    private static boolean isSet(byte[] cpus, int cpu) {
        return (cpus[cpu / 8] & (1 << (cpu % 8))) != 0;
    }

    private static boolean setCurrentThread(byte[] cpus) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(CPU_SETSIZE_BYTES);
            MemorySegment.copy(cpus, 0, set, ValueLayout.JAVA_BYTE, 0, Math.min(cpus.length, CPU_SETSIZE_BYTES));
            return (int) SCHED_SETAFFINITY.invokeExact(0, (long) CPU_SETSIZE_BYTES, set) == 0;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity failed", t);
        }
    }
}
