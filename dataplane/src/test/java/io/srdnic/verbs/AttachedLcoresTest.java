package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.verbs.AttachedSrdTest.App;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code srdnic dataplane --lcores} runs one attach server per lcore in one process, their clients'
 * shared files side by side in one directory: each client must get a file of its own (they are
 * named by client id, so the servers number their clients apart).
 */
class AttachedLcoresTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    @Test
    void shouldGiveTheClientsOfTwoLcoresServersSharedFilesOfTheirOwn() throws IOException {
        Path shm = Files.createDirectories(dir.resolve("shm"));
        Path lcore0 = Files.createDirectories(dir.resolve("lcore-0"));
        Path lcore1 = Files.createDirectories(dir.resolve("lcore-1"));
        try (AttachedWorld w0 = new AttachedWorld(lcore0, 1, AllowRule.ownUidOrRoot(), shm, 0, 2);
             AttachedWorld w1 = new AttachedWorld(lcore1, 1, AllowRule.ownUidOrRoot(), shm, 1, 2);
             App a = new App(lcore0, 0, 4);
             App b = new App(lcore1, 0, 4)) {
            assertEquals(2, sharedFiles(shm).size(), "one file per client, neither replacing the other: " + sharedFiles(shm));
        }
    }

    private static List<Path> sharedFiles(Path shm) throws IOException {
        try (Stream<Path> files = Files.list(shm)) {
            return files.toList();
        }
    }
}
