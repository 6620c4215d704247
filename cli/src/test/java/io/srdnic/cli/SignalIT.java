package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Ctrl-C in the middle of a run: the process stops in order and leaves no EAL files behind. */
class SignalIT {
    @Test
    void shouldRemoveTheEalRuntimeDirectoryOnSigint() throws Exception {
        Process p = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED",
            "-jar", System.getProperty("srdnic.jar"), "pktgen", "--link", "ring", "--count", "2000000000", "--time-limit-s", "60")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Path runtimeDir = Path.of("/var/run/dpdk/srdnic-" + p.pid());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(runtimeDir) && System.nanoTime() < deadline && p.isAlive()) {
            Thread.sleep(20);
        }
        assertTrue(Files.exists(runtimeDir), "EAL should have created " + runtimeDir);
        Thread.sleep(500); // let frames flow
        new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "pktgen should stop on SIGINT");
        assertEquals(130, p.exitValue(), "the JVM's exit status after SIGINT");
        assertFalse(Files.exists(runtimeDir), "the EAL runtime directory must be removed on SIGINT");
    }
}
