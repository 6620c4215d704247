package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dataplane without a shared-memory directory gives each client a sealed memfd: the client
 * cannot shrink it (the truncation that faults a file-backed dataplane is refused by the kernel),
 * and nothing names it in /dev/shm.
 */
class AttachedSealedMemoryTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    @Test
    void shouldRefuseAClientThatTriesToShrinkItsMemory() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot(), null, 0, 1);
             WellBehavedTraffic traffic = new WellBehavedTraffic(dir); HostileClient bad = new HostileClient(dir, 0, 1 << 20, 1 << 16)) {
            traffic.awaitMore(20);
            long before = traffic.rounds();
            assertTrue(bad.info.shmPath().startsWith("memfd:"), bad.info.shmPath()); // passed by descriptor: no path to open
            int pd = bad.allocPd();
            bad.srdQp(pd, bad.createCq(64).handle(), 64, AttachedSrdTest.QKEY);
            IOException refused = assertThrows(IOException.class, () -> bad.file.truncate(0));
            assertTrue(String.valueOf(refused.getMessage()).contains("not permitted"), refused.getMessage());
            assertEquals(bad.info.fileBytes(), bad.file.size(), "still whole");
            bad.allocPd(); // the client is still served
            traffic.awaitMore(200);
            assertNull(traffic.failure());
            assertTrue(traffic.rounds() >= before + 200);
            assertEquals(0, w.counter("clients_fenced"));
        }
    }
}
