package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.srdnic.cli.net.Shell;
import org.junit.jupiter.api.Test;

/** pktgen over two net_tap ports joined by a Linux bridge that pktgen creates and removes. */
class PktgenTapIT {
    @Test
    void shouldMoveEveryFrameIntactAcrossABridgeOfTaps() {
        assumeTrue(CliRun.root(), "tap devices and bridges need root");
        CliRun run = CliRun.of("pktgen", "--link", "tap", "--count", "20000", "--size", "200", "--json");
        assertEquals(0, run.status(), run.stdout());
        assertEquals(20000, run.number("received"));
        assertEquals(0, run.number("corrupted"));
        String links = Shell.run("ip", "-o", "link");
        assertEquals(false, links.contains("srdbr" + ProcessHandle.current().pid() % 100_000), "bridge left behind");
    }
}
