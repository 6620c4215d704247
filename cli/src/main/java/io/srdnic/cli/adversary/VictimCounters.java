package io.srdnic.cli.adversary;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what the victim's transport counted and what its process holds. The rejections are every
 * non-zero counter that is not ordinary traffic (packets sent and received, deliveries, completions,
 * contexts made and reclaimed, recovery from loss): parse errors, duplicates, out-of-window and
 * stale packets, drops sent, table-full events, and whatever counter is added later — a counter not
 * listed here as traffic shows up by its own name.
 */
public final class VictimCounters {
    /** Counters that count ordinary work, not a frame turned away. */
    private static final List<String> TRAFFIC = List.of("rx_data", "rx_acks", "rx_probes", "rx_datagrams", "delivered",
        "contexts_created", "contexts_reclaimed", "peer_resets", "rto_events", "rack_losses", "unresponsive_events", "no_mbuf");
    private static final List<String> TRAFFIC_PREFIXES = List.of("tx_", "send_", "drops_received_");

    private VictimCounters() {
    }

    /** The non-zero rejection-like counters, by name, in the transport's order. */
    public static Map<String, Long> rejections(Map<String, Long> counters) {
        Map<String, Long> m = new LinkedHashMap<>();
        counters.forEach((k, v) -> {
            if (v != null && v != 0 && !isTraffic(k)) {
                m.put(k, v);
            }
        });
        return m;
    }

    /** Every non-zero counter. */
    public static Map<String, Long> nonZero(Map<String, Long> counters) {
        Map<String, Long> m = new LinkedHashMap<>();
        counters.forEach((k, v) -> {
            if (v != null && v != 0) {
                m.put(k, v);
            }
        });
        return m;
    }

    static boolean isTraffic(String name) {
        if (TRAFFIC.contains(name)) {
            return true;
        }
        for (String p : TRAFFIC_PREFIXES) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** This process's peak resident set (VmHWM) in MiB; NaN where /proc does not say. */
    public static double peakRssMb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    String[] p = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(p[0]) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return Double.NaN;
    }
}
