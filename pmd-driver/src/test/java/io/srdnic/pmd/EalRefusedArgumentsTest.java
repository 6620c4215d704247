package io.srdnic.pmd;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** EAL refusing its arguments ends in an exception with DPDK's reason and what to change (own JVM: one EAL try per process). */
class EalRefusedArgumentsTest {
    @Test
    void shouldExplainWhyEalRefusedItsArguments() {
        DpdkException e = assertThrows(DpdkException.class, () -> Eal.start(new EalConfig().arg("--no-such-eal-option")));
        assertTrue(e.getMessage().contains("rte_eal_init refused"), e.getMessage());
        assertTrue(e.getMessage().contains("--no-such-eal-option"), e.getMessage());
        assertTrue(e.getMessage().contains("check the --vdev specs"), e.getMessage());
        assertFalse(Eal.isRunning());
        IllegalStateException again = assertThrows(IllegalStateException.class, () -> Eal.start(new EalConfig()));
        assertTrue(again.getMessage().contains("one rte_eal_init per process"), again.getMessage());
    }

    @Test
    void shouldRejectNonsenseConfigurationBeforeCallingDpdk() {
        assertThrows(IllegalArgumentException.class, () -> new EalConfig().memoryMb(16));
        assertThrows(IllegalArgumentException.class, () -> new EalConfig().filePrefix("a/b"));
        assertThrows(IllegalArgumentException.class, () -> new PortConfig(0, 1, 512, 512, 0, false));
    }
}
