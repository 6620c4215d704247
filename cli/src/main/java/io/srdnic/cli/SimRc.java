package io.srdnic.cli;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.sim.RcOp;
import io.srdnic.srd.sim.RcSimulation;
import io.srdnic.srd.sim.Scenario;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code srdnic sim --transport rc}: one RC connection on the simulated fabric (RcSimulation); exit
 * status 1 unless every message checks out.
 */
record SimRc(Scenario links, List<RcOp> ops, Map<String, String> settings, Path pcap) {

    int call() {
        System.err.printf(Locale.ROOT, "sim: RC, %d messages of %d B (%s), loss %.3f dup %.3f reorder %.3f, %d paths, seed %d%n",
            links.messages(), links.size(), ops.stream().map(RcOp::label).toList(), links.loss(), links.duplicate(), links.reorder(),
            links.paths(), links.seed());
        TransportConfig config = new TransportConfig();
        settings.forEach(config::set);
        RcSimulation.Report r = SimCapture.run(pcap, wrap -> RcSimulation.run(links, ops, wrap, config));
        System.out.printf(Locale.ROOT, "messages %d  completed ok %d  errors %s%n", r.messages(), r.ok(), r.errorsByStatus());
        System.out.printf(Locale.ROOT, "RNR NAKs %d  READs and atomics held for an answer slot %d  retransmits %d  virtual time %d us%n",
            r.rnrNaks(), r.answersDeferred(), r.retransmits(), r.virtualTimeUs());
        r.failures().forEach(f -> System.err.println("sim: " + f));
        if (!r.passed()) {
            System.err.println("sim: FAILED");
        }
        return r.passed() ? 0 : 1;
    }
}
