package io.srdnic.cli.pktgen;

import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.PortStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Frames a link dropped where pktgen's own counts cannot see them, so a lost frame can be told
 * from one that vanished. Two sources: the DPDK port's drop counters, and, under an af_xdp or
 * af_packet port, the kernel interface's (an AF_XDP socket whose receive ring is full makes the
 * kernel drop and count the frame on the veth; DPDK 22.11's af_xdp statistics do not show it).
 * The kernel's counters are read from sysfs, which {@code ip netns exec} mounts for the side's
 * namespace; a count is the difference between the start and the end of the run.
 */
final class LinkDrops {
    private final EthPort port;
    private final Path statistics;
    private final long kernelAtStart;

    /** Starts counting for {@code port}, and for the kernel interface {@code iface} under it when not null. */
    LinkDrops(EthPort port, String iface) {
        this.port = port;
        this.statistics = iface == null ? null : Path.of("/sys/class/net", iface, "statistics");
        this.kernelAtStart = kernel();
    }

    /** The {@code iface=} of a vdev spec, or null. */
    static String interfaceOf(String vdev) {
        for (String part : vdev.split(",")) {
            if (part.startsWith("iface=") && part.length() > "iface=".length()) {
                return part.substring("iface=".length());
            }
        }
        return null;
    }

    /** Receiving side: the kernel's drops since the start, and what the port counted as missed or unreceivable. */
    long received() {
        PortStats s = port.stats();
        return kernel() - kernelAtStart + s.rxMissed() + s.rxErrors() + s.rxNoMbuf();
    }

    /** Sending side: the kernel's drops since the start, what the port failed to send, and what its queue refused. */
    long sent(long refusedByQueue) {
        return kernel() - kernelAtStart + port.stats().txErrors() + refusedByQueue;
    }

    private long kernel() {
        return statistics == null ? 0 : read("rx_dropped") + read("tx_dropped");
    }

    private long read(String counter) {
        try {
            return Long.parseLong(Files.readString(statistics.resolve(counter)).trim());
        } catch (IOException | NumberFormatException e) {
            return 0; // no such interface here, or no such counter: nothing to count
        }
    }
}
