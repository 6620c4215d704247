package io.srdnic.dataplane;

import io.srdnic.dataplane.attach.AttachPolicy;
import io.srdnic.dataplane.attach.TotalQuota;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What every lcore of one dataplane is told: its ports, how many lcores, where things go, its transports' settings, who may attach,
 * and what all their clients may hold together ({@code totals}, one object every lcore's server takes from).
 */
record DataplaneSetup(List<String> ports, int lcores, List<Integer> cpus, int firstIp, Path dir, Path shmDir, Path pidFile, int memoryMb,
                      boolean busySpin, Map<String, String> srdSettings, AttachPolicy policy,
                      TotalQuota totals) {

    /** Where lcore {@code k}'s clients attach: DIR itself for lcore 0 (as with one lcore), {@code DIR/lcore-<k>} for the others. */
    Path attachDir(int k) {
        return k == 0 ? dir : dir.resolve("lcore-" + k);
    }

    /** The CPU lcore {@code k} is pinned to, or -1. */
    int cpu(int k) {
        return k < cpus.size() ? cpus.get(k) : -1;
    }
}
