package io.srdnic.pmd;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Asking for hugepages on a machine that has none reserved fails with advice, not a crash. */
class EalNoHugepagesTest {
    @Test
    void shouldExplainMissingHugepages() throws Exception {
        String meminfo = Files.readString(Path.of("/proc/meminfo"));
        assumeTrue(meminfo.matches("(?s).*HugePages_Total:\\s+0\\b.*"),
            "this machine has hugepages reserved, so EAL would succeed: the refusal cannot be shown here");
        DpdkException e = assertThrows(DpdkException.class, () -> Eal.start(new EalConfig().hugepages(true)));
        assertTrue(e.getMessage().contains("hugepages (or use --no-huge)"), e.getMessage());
        assertFalse(Files.exists(Path.of("/var/run/dpdk/srdnic-" + ProcessHandle.current().pid())),
            "the refused start left its EAL runtime directory behind");
    }
}
