package io.srdnic.cli.perf;

import io.srdnic.pmd.Eal;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.ThreadingMode;
import java.util.function.Supplier;

/**
 * How one side runs: the EAL of its process, how it opens its port (after the parameters are
 * agreed, so a memif client opens after its server), its IPv4 address and threading mode, and
 * whether the server prints the client's summary (it does when it runs on its own, with --server).
 */
record SideConfig(Eal eal, Supplier<PerfPort> opener, int ip, ThreadingMode threading, String link, boolean printSummary) {

    ContextConfig contextConfig(long seed) {
        return new ContextConfig().mode(threading).ip(ip).seed(seed);
    }
}
