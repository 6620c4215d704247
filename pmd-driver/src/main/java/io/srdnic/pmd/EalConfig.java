package io.srdnic.pmd;

import java.util.ArrayList;
import java.util.List;

/**
 * EAL arguments, built in Java. Defaults suit virtual devices on a shared machine: no hugepages
 * ({@code --no-huge}, with {@code -m 512} because DPDK's 64 MiB default cannot hold real pools),
 * a file prefix unique to this process so several processes never collide, no telemetry socket,
 * no PCI scan, no shared config files, and the main lcore left on the CPUs its thread may already run on (not moved to one).
 * <p>
 * For a PCI NIC: {@code new EalConfig().hugepages(true).pci(true).allow("0000:3b:00.0")} — the NIC must
 * be bound to vfio-pci and hugepages reserved (see README).
 */
public final class EalConfig {
    private final List<String> vdevs = new ArrayList<>();
    private final List<String> allowedPci = new ArrayList<>();
    private final List<String> extra = new ArrayList<>();
    private boolean hugepages;
    private boolean pci;
    private int memoryMb = 512;
    private String filePrefix = "srdnic-" + ProcessHandle.current().pid();
    private String logLevel = "*:error";
    private String lcores;

    /** Adds a virtual device probed at start, e.g. {@code net_memif0,role=server,socket=/tmp/m.sock}. */
    public EalConfig vdev(String spec) {
        vdevs.add(spec);
        return this;
    }

    /** Uses hugepages (they must be reserved and hugetlbfs mounted) instead of {@code --no-huge}. */
    public EalConfig hugepages(boolean use) {
        this.hugepages = use;
        return this;
    }

    /** Scans the PCI bus (off by default: virtual devices need no scan). */
    public EalConfig pci(boolean scan) {
        this.pci = scan;
        return this;
    }

    /** Probes only this PCI device (implies {@link #pci(boolean) pci(true)}). */
    public EalConfig allow(String pciAddress) {
        this.pci = true;
        allowedPci.add(pciAddress);
        return this;
    }

    /** Memory EAL reserves up front, in MiB ({@code -m}); 512 by default. */
    public EalConfig memoryMb(int mb) {
        if (mb < 64) {
            throw new IllegalArgumentException("EAL needs at least 64 MiB, asked for " + mb);
        }
        this.memoryMb = mb;
        return this;
    }

    public EalConfig filePrefix(String prefix) {
        if (prefix.isBlank() || prefix.contains("/")) {
            throw new IllegalArgumentException("file prefix must be a non-empty name without '/': " + prefix);
        }
        this.filePrefix = prefix;
        return this;
    }

    /** DPDK log level, e.g. {@code *:info} or {@code pmd.net.memif:debug}. */
    public EalConfig logLevel(String level) {
        this.logLevel = level;
        return this;
    }

    /** The {@code --lcores} map; by default lcore 0 runs on the CPUs the thread starting EAL may run on. */
    public EalConfig lcores(String map) {
        this.lcores = map;
        return this;
    }

    /** Any further EAL argument, passed as is. */
    public EalConfig arg(String argument) {
        extra.add(argument);
        return this;
    }

    /** Whether lcore 0's CPUs are the starting thread's own (no {@link #lcores} map given). */
    boolean defaultLcores() {
        return lcores == null;
    }

    /** lcore 0 on the starting thread's CPUs; on a host with more CPUs than a fixed-size set holds, on all of them as before. */
    private static String defaultLcoreMap() {
        try {
            return lcoreMap(Affinity.currentThreadCpus());
        } catch (IllegalStateException e) {
            return "0@(0-" + (Runtime.getRuntime().availableProcessors() - 1) + ")";
        }
    }

    /**
     * {@code 0@(cpus)} for EAL's --lcores. EAL's parser takes a range that starts at RTE_MAX_LCORE
     * (128 in Debian's build) for one with no start, so such a range is written as its first CPU
     * and the rest ("128,129-255"), which EAL reads right.
     */
    static String lcoreMap(byte[] cpus) {
        StringBuilder list = new StringBuilder();
        for (String part : Affinity.cpuList(cpus).split(",")) {
            if (part.startsWith("128-")) {
                String end = part.substring(4);
                part = end.equals("129") ? "128,129" : "128,129-" + end;
            }
            list.append(list.isEmpty() ? "" : ",").append(part);
        }
        return "0@(" + list + ")";
    }

    public String filePrefix() {
        return filePrefix;
    }

    public List<String> toArguments() {
        List<String> args = new ArrayList<>();
        args.add("srdnic");
        // EAL sets its calling thread's CPU set to lcore 0's: by default the one the thread has, so a
        // loop pinned before EAL starts stays where it was put (0@(0-N) moved it off its CPU).
        args.add("--lcores=" + (lcores != null ? lcores : defaultLcoreMap()));
        args.add("--file-prefix=" + filePrefix);
        args.add("--no-telemetry");
        args.add("--log-level=" + logLevel);
        if (!hugepages) {
            args.add("--no-huge");
            args.add("--no-shconf");
        }
        args.add("-m");
        args.add(Integer.toString(memoryMb));
        if (!pci) {
            args.add("--no-pci");
        }
        for (String a : allowedPci) {
            args.add("--allow=" + a);
        }
        for (String v : vdevs) {
            args.add("--vdev=" + v);
        }
        args.addAll(extra);
        return args;
    }
}
