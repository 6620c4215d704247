package io.srdnic.cli.perf;

import io.srdnic.pmd.Affinity;
import io.srdnic.pmd.Eal;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.ThreadingMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

/**
 * How one side runs: the EAL of its process, how it opens its port (after the parameters are
 * agreed, so a memif client opens after its server), its IPv4 address and threading mode, and
 * whether the server prints the client's summary (it does when it runs on its own, with --server),
 * the SRD settings given with {@code --set}, and the CPU its polling thread is pinned to (-1: none).
 * Attached ({@code attach}: a {@code srdnic dataplane}'s directory) it has no EAL and no port: its
 * context is opened in that dataplane, which owns the port.
 */
record SideConfig(Eal eal, Supplier<PerfPort> opener, int ip, ThreadingMode threading, String link, boolean printSummary,
                  Map<String, String> srdSettings, int cpu, Path attach) {

    SideConfig(Eal eal, Supplier<PerfPort> opener, int ip, ThreadingMode threading, String link, boolean printSummary,
               Map<String, String> srdSettings, int cpu) {
        this(eal, opener, ip, threading, link, printSummary, srdSettings, cpu, null);
    }

    /** A side attached to the dataplane in {@code dir}: the port, the IPv4 address and the transport are the dataplane's. */
    static SideConfig attached(Path dir, ThreadingMode threading, String link, boolean printSummary, Map<String, String> srdSettings,
                               int cpu) {
        return new SideConfig(null, () -> null, 0, threading, link, printSummary, srdSettings, cpu, dir);
    }

    /**
     * Whether this side's loop yields its core when idle: when a dataplane thread does the
     * transport's work, in this process (DEDICATED) or in the dataplane process (attached), and
     * must get a core to do it; the poll here only reads rings. sched_yield returns at once when
     * nothing else waits for the core.
     */
    boolean yieldsWhenIdle() {
        return threading == ThreadingMode.DEDICATED || attach != null;
    }

    /** This side's port, or null attached (the dataplane owns it). */
    PerfPort openPort() {
        return attach != null ? null : opener.get();
    }

    /**
     * This side's context: on {@code port}, or in the dataplane it is attached to, with a pool that
     * holds every region a run of messages of {@code size} bytes makes.
     */
    Context openContext(PerfPort port, long seed, int size) {
        if (attach == null) {
            return Context.open(Device.dpdk(port.port, port.pool), contextConfig(seed));
        }
        return Context.open(Device.attached(attach), new ContextConfig().attachedPoolBytes((64L << 20) + 4L * size));
    }

    /**
     * Runs {@code side} (the raw ping-pong and the run) on the calling thread pinned to this side's
     * CPU, so two sides never share a core, then gives the thread its CPU set back: a caller that
     * runs perf in its own thread (a test, the ring link's client) is not left pinned.
     */
    <T> T pinnedWhile(Supplier<T> side) {
        if (cpu < 0) {
            return side.get();
        }
        byte[] before = Affinity.currentThreadCpus();
        Affinity.pinCurrentThread(cpu);
        try {
            return side.get();
        } finally {
            Affinity.restoreCurrentThread(before);
        }
    }

    ContextConfig contextConfig(long seed) {
        return withSettings(new ContextConfig().mode(threading).ip(ip).seed(seed), srdSettings);
    }

    /** The CPUs the calling thread may run on, as the kernel has them ("0", "0-1"); null where it does not say. */
    static String cpusOfThisThread() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return line.substring("Cpus_allowed_list:".length()).trim();
                }
            }
        } catch (IOException e) {
            // not Linux, or no procfs: nothing to report
        }
        return null;
    }

    /** Applies {@code --set KEY=VALUE} settings to a context's SRD configuration. */
    static ContextConfig withSettings(ContextConfig config, Map<String, String> settings) {
        settings.forEach(config.srd()::set);
        return config;
    }
}
