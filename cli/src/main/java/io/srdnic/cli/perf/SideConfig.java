package io.srdnic.cli.perf;

import io.srdnic.pmd.Eal;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.ThreadingMode;
import java.util.Map;
import java.util.function.Supplier;

/**
 * How one side runs: the EAL of its process, how it opens its port (after the parameters are
 * agreed, so a memif client opens after its server), its IPv4 address and threading mode, and
 * whether the server prints the client's summary (it does when it runs on its own, with --server),
 * and the SRD settings given with {@code --set}.
 */
record SideConfig(Eal eal, Supplier<PerfPort> opener, int ip, ThreadingMode threading, String link, boolean printSummary,
                  Map<String, String> srdSettings) {

    ContextConfig contextConfig(long seed) {
        return withSettings(new ContextConfig().mode(threading).ip(ip).seed(seed), srdSettings);
    }

    /** Applies {@code --set KEY=VALUE} settings to a context's SRD configuration. */
    static ContextConfig withSettings(ContextConfig config, Map<String, String> settings) {
        settings.forEach(config.srd()::set);
        return config;
    }
}
