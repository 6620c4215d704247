package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** srdnic ports lists the devices EAL was given. */
class PortsIT {
    @Test
    void shouldListVirtualDevicesWithDriverAndMac() {
        CliRun run = CliRun.of("ports", "--vdev", "net_null0", "--vdev", "net_ring0");
        assertEquals(0, run.status());
        assertTrue(run.stdout().matches("(?s).*0 +net_null0 +net_null +[0-9a-f:]{17} .*"), run.stdout());
        assertTrue(run.stdout().matches("(?s).*1 +net_ring0 +net_ring .*"), run.stdout());
    }
}
