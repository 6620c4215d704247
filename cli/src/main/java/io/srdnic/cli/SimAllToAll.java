package io.srdnic.cli;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.sim.AllToAllSimulation;
import io.srdnic.srd.sim.Scenario;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code srdnic sim --all-to-all --nodes N --jobs J --transport rc|src|srd}: full job-to-job
 * connectivity on the simulated fabric (AllToAllSimulation), its cost per node, then one message
 * from every job to every job of every other node, each checked; exit status 1 unless all arrive.
 */
record SimAllToAll(Scenario links, AllToAllSimulation.Transport transport, int jobs, int size, Map<String, String> settings, boolean json,
                   Path pcap) {

    int call() {
        System.err.printf(Locale.ROOT,
                "sim: all-to-all over %s, %d nodes x %d jobs, %d B messages, loss %.3f dup %.3f reorder %.3f, seed %d%n",
            transport, links.hosts(), jobs, size, links.loss(), links.duplicate(), links.reorder(), links.seed());
        TransportConfig config = new TransportConfig();
        settings.forEach(config::set);
        long start = System.nanoTime();
        AllToAllSimulation.Report r = SimCapture.run(pcap, wrap -> AllToAllSimulation.run(links, transport, jobs, size, config, wrap));
        System.err.printf(Locale.ROOT, "sim: done in %.1f s of wall time%n", (System.nanoTime() - start) / 1e9);
        System.out.printf(Locale.ROOT, "per node: %d QPs  %d transport contexts  %d bytes of transport state  %.2f ms to set up%n",
            r.qpsPerNode(), r.contextsPerNode(), r.stateBytesPerNode(), r.setupMsPerNode());
        System.out.printf(Locale.ROOT, "cluster: %d QPs  messages %d  delivered %d  virtual time %d us%n", r.qpsPerNode() * r.nodes(),
            r.messages(), r.delivered(), r.virtualTimeUs());
        r.failures().stream().limit(20).forEach(f -> System.err.println("sim: " + f));
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("transport", transport.name().toLowerCase(Locale.ROOT));
            m.put("nodes", r.nodes());
            m.put("jobs", r.jobs());
            m.put("qps_per_node", r.qpsPerNode());
            m.put("contexts_per_node", r.contextsPerNode());
            m.put("state_bytes_per_node", r.stateBytesPerNode());
            m.put("setup_ms", r.setupMsPerNode());
            m.put("messages", r.messages());
            m.put("delivered", r.delivered());
            m.put("virtual_time_us", r.virtualTimeUs());
            m.put("passed", r.passed());
            System.out.println(Json.object(m));
        }
        if (!r.passed()) {
            System.err.println("sim: FAILED");
        }
        return r.passed() ? 0 : 1;
    }
}
