package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code srdnic nbd} in a process of its own, from the packaged jar, as a user runs it: started,
 * waited for until it prints {@code ready}, stopped with SIGTERM (and checked to have exited and
 * removed its socket).
 */
final class NbdServerProcess implements AutoCloseable {
    final Process process;
    final Path socket;

    private NbdServerProcess(Process process, Path socket) {
        this.process = process;
        this.socket = socket;
    }

    /** Starts the server with these arguments after "nbd" and waits for "ready". */
    static NbdServerProcess start(Path socket, Path stderr, String... args) throws IOException {
        return startCommand("nbd", socket, stderr, args);
    }

    /** Starts {@code srdnic <subcommand> args} (nbd, nbd-local) and waits for "ready". */
    static NbdServerProcess startCommand(String subcommand, Path socket, Path stderr, String... args) throws IOException {
        return startIn(null, subcommand, socket, stderr, args);
    }

    /** As {@link #startCommand}, inside network namespace {@code namespace} ({@code ip netns exec}) unless it is null. */
    static NbdServerProcess startIn(String namespace, String subcommand, Path socket, Path stderr, String... args) throws IOException {
        return startWith(Map.of(), namespace, List.of(), subcommand, socket, stderr, args);
    }

    /**
     * As {@link #startIn}, with {@code env} added to the process's environment and options for the
     * server's JVM (a heap limit, GC logging).
     */
    static NbdServerProcess startWith(Map<String, String> env, String namespace, List<String> jvmOptions, String subcommand, Path socket,
                                      Path stderr, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        if (namespace != null) {
            command.addAll(List.of("ip", "netns", "exec", namespace)); // it execs the JVM: SIGTERM reaches srdnic itself
        }
        command.addAll(List.of(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", System.getProperty("srdnic.jar"), subcommand));
        command.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(command).redirectError(stderr.toFile());
        b.environment().putAll(env);
        Process p = b.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertEquals("ready", line, () -> "first line of stdout; stderr: " + read(stderr));
        return new NbdServerProcess(p, socket);
    }

    /** The server's resident set (VmRSS), in bytes. */
    long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS for " + process.pid());
    }

    /** The libnbd / qemu URI of an export on the unix socket. */
    String uri(String export) {
        return "nbd+unix:///" + export + "?socket=" + socket;
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** SIGTERM; the process must exit within 20 s and leave no socket file. */
    @Override
    public void close() throws InterruptedException {
        process.destroy(); // SIGTERM
        boolean exited = process.waitFor(20, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
        }
        assertTrue(exited, "srdnic nbd should exit on SIGTERM");
        if (socket != null) {
            assertFalse(Files.exists(socket), "the socket file is removed on exit");
            assertFalse(Files.exists(Path.of(socket + ".ctl")), "and nbd-local's control socket");
        }
    }
}
