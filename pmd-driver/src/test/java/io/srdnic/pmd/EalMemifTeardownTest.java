package io.srdnic.pmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A memif port closed while its peer is closing: net_memif disconnects on EAL's interrupt thread
 * when the peer goes, and a stop on the closing thread at the same moment freed the driver's
 * regions twice (SIGSEGV in librte_eal, the crash of a two-process perf run's teardown; or EAL's
 * "Invalid memory" when the second free came late enough to be caught). Then EAL is cleaned up
 * with a memif server's listening socket still registered, which crashed the interrupt thread
 * when something woke it after the unmap. The closing runs in a child JVM, so a crash fails this
 * test with the JVM's report instead of taking the test JVM down.
 */
class EalMemifTeardownTest {
    @Test
    void shouldCloseAMemifPortWhileItsPeerDisconnects() throws Exception {
        Path errors = Files.createTempDirectory("srdnic-memif-teardown");
        try {
            Process child = new ProcessBuilder(List.of(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED",
                "-XX:ErrorFile=" + errors + "/hs_err_%p.log", "-XX:-CreateCoredumpOnCrash", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), MemifPairCloser.class.getName(), "1200", "10000"))
                .redirectErrorStream(true).start();
            boolean ended = child.waitFor(60, TimeUnit.SECONDS);
            if (!ended) {
                child.destroyForcibly();
            }
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(ended, "the closing did not end within 60 s: " + output);
            assertEquals(0, child.exitValue(), "the child closing memif pairs died:\n" + output + crashReport(errors));
            assertTrue(output.contains("closed "), output);
            // rte_free's word for a region freed twice when the second free came after the first
            assertFalse(output.contains("Invalid memory"), "a memif region was freed twice:\n" + output);
        } finally {
            try (Stream<Path> files = Files.list(errors)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(errors);
        }
    }

    /** The head of the JVM's crash report (the signal, the frame, the thread), if it wrote one. */
    private static String crashReport(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            StringBuilder sb = new StringBuilder();
            for (Path f : files.toList()) {
                List<String> lines = Files.readAllLines(f);
                sb.append("\n").append(f.getFileName()).append(":\n");
                lines.stream().filter(l -> l.startsWith("#  SIG") || l.startsWith("# C ") || l.startsWith("Current thread")
                    || l.startsWith("C  [") || l.startsWith("j  ") || l.startsWith("siginfo")).limit(20)
                    .forEach(l -> sb.append(l).append('\n'));
            }
            return sb.toString();
        }
    }
}
