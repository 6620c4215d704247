package io.srdnic.cli;

import io.srdnic.cli.pktgen.PktgenCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code srdnic demo}: the README's main job. Until the SRD transport and verbs API land, it shows
 * the layer they stand on: pktgen over a net_ring pair in this process, then over memif between
 * two processes, every frame checked.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Show srdnic moving verified frames over virtual DPDK links (ring, then memif between two processes).")
final class DemoCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        String[][] runs = {
            {"--link", "ring", "--count", "1000000", "--size", "64"},
            {"--link", "memif", "--count", "200000", "--size", "64"},
        };
        int status = 0;
        for (String[] run : runs) {
            System.out.println("== srdnic pktgen " + String.join(" ", run));
            // Each run starts its own EAL: ring runs here, so memif (two child JVMs) goes second.
            status |= new CommandLine(new PktgenCommand()).execute(run);
        }
        System.out.println(status == 0 ? "demo: every frame arrived once and intact" : "demo: FAILED (see above)");
        return status;
    }
}
