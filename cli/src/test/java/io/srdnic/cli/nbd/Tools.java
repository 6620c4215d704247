package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs the Debian tools (fio, qemu-img, nbdinfo, nbdcopy; scripts/setup installs them) with a deadline. */
final class Tools {
    private Tools() {
    }

    /** Skips the test when a tool is missing (run scripts/setup). */
    static void require(String tool) {
        boolean found = false;
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            found |= Files.isExecutable(Path.of(dir, tool));
        }
        assumeTrue(found, tool + " is not installed: run scripts/setup");
    }

    /** Runs a command in {@code dir}, asserts it exits 0 within the time, returns stdout and stderr. */
    static String run(Path dir, int seconds, String... command) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "tool", ".log");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean exited = p.waitFor(seconds, TimeUnit.SECONDS);
        if (!exited) {
            p.destroyForcibly().waitFor();
        }
        String output = Files.readString(log);
        assertTrue(exited, () -> String.join(" ", List.of(command)) + " did not finish in " + seconds + " s: " + output);
        assertEquals(0, p.exitValue(), () -> String.join(" ", List.of(command)) + " failed: " + output);
        return output;
    }

    /**
     * A file of {@code bytes} seeded random bytes with a stretch of zeroes in its second quarter,
     * which the tools may skip or send as write-zeroes.
     */
    static Path randomImage(Path dir, String name, int bytes, long seed) throws IOException {
        byte[] data = new byte[bytes];
        new Random(seed).nextBytes(data);
        for (int i = bytes / 4; i < bytes / 2; i++) {
            data[i] = 0;
        }
        return Files.write(dir.resolve(name), data);
    }

    /** The sum of every {@code "field":N} in a JSON text (a field each path or job repeats). */
    static long sum(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\":(\\d+)").matcher(json);
        long total = 0;
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }
}
