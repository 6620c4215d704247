package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * tshark with srdnic's Lua dissector loaded ({@code tshark -X lua_script:tools/wireshark/srdnic.lua}).
 * A missing tshark fails the test that asks for it: scripts/setup installs it, and CI runs that.
 */
record Tshark(Path executable, Path dissector) {

    static final String DISSECTOR = "tools/wireshark/srdnic.lua";

    /** tshark from the PATH and the dissector from the source tree; fails (does not skip) when either is missing. */
    static Tshark find() {
        Path executable = onPath("tshark");
        if (executable == null) {
            fail("tshark is not on the PATH: install it with scripts/setup (Debian: apt-get install tshark); this test "
                + "decodes srdnic's captures with the Wireshark dissector " + DISSECTOR + " and must not skip");
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path script = dir.resolve(DISSECTOR);
            if (Files.isRegularFile(script)) {
                return new Tshark(executable, script);
            }
        }
        return fail(DISSECTOR + " not found above " + Path.of("").toAbsolutePath());
    }

    /** Runs tshark with the dissector and {@code args}; returns stdout's lines, fails on a non-zero exit or a Lua error. */
    List<String> run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        command.add("-X");
        command.add("lua_script:" + dissector);
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile("tshark", ".err");
        try {
            Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
            process.getOutputStream().close();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("tshark did not finish in 120 s: " + command);
            }
            String err = Files.readString(stderr);
            if (process.exitValue() != 0) {
                fail("tshark exited with " + process.exitValue() + ": " + command + "\n" + err);
            }
            if (err.contains("Lua")) {
                fail("tshark reported a Lua error loading or running " + dissector + ":\n" + err);
            }
            return out.isEmpty() ? List.of() : List.of(out.split("\n"));
        } finally {
            Files.deleteIfExists(stderr);
        }
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }
}
