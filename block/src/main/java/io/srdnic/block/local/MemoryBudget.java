package io.srdnic.block.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a memory device of a given size fits in the memory this machine (or this process's
 * cgroup) has free now: a sparse mapping takes nothing at start but every page once written, and
 * a device that cannot be filled would fail half way with the kernel's OOM killer, not an error.
 * Devices already made in this process count against the budget as if full.
 */
final class MemoryBudget {
    private static final AtomicLong HELD = new AtomicLong();

    private MemoryBudget() {
    }

    /** Takes {@code bytes} out of the budget, or throws an IllegalArgumentException naming the sizes. */
    static void reserve(long bytes, String what) {
        long available = available();
        long held = HELD.addAndGet(bytes);
        if (available >= 0 && held > available) {
            HELD.addAndGet(-bytes);
            long others = held - bytes;
            throw new IllegalArgumentException(what + " of " + human(bytes) + " does not fit in memory: " + human(available)
                + " available (" + source() + ")" + (others > 0 ? ", of which " + human(others)
                        + " is held by this process's other memory devices" : "")
                + "; give a smaller size or use a file (file:PATH, --backing FILE)");
        }
    }

    static void release(long bytes) {
        HELD.addAndGet(-bytes);
    }

    /** MemAvailable, or less if this process's cgroup allows less; -1 if neither can be read. */
    static long available() {
        long meminfo = memAvailable();
        long cgroup = cgroupHeadroom();
        if (meminfo < 0) {
            return cgroup;
        }
        return cgroup < 0 ? meminfo : Math.min(meminfo, cgroup);
    }

    private static String source() {
        long cgroup = cgroupHeadroom();
        return cgroup >= 0 && cgroup < memAvailable() ? "the cgroup's memory.max less memory.current" : "MemAvailable in /proc/meminfo";
    }

    private static long memAvailable() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** cgroup v2: memory.max less memory.current of this process's group; -1 if unlimited or unknown. */
    private static long cgroupHeadroom() {
        try {
            String group = null;
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                if (line.startsWith("0::")) {
                    group = line.substring(3);
                }
            }
            if (group == null) {
                return -1;
            }
            Path dir = Path.of("/sys/fs/cgroup", group);
            String max = Files.readString(dir.resolve("memory.max")).strip();
            if (max.equals("max")) {
                return -1;
            }
            long current = Long.parseLong(Files.readString(dir.resolve("memory.current")).strip());
            return Math.max(0, Long.parseLong(max) - current);
        } catch (IOException | NumberFormatException | InvalidPathException e) {
            return -1;
        }
    }

    static String human(long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.1f GiB (%d bytes)", bytes / (double) (1L << 30), bytes);
        }
        return String.format(Locale.ROOT, "%.1f MiB (%d bytes)", bytes / (double) (1L << 20), bytes);
    }
}
