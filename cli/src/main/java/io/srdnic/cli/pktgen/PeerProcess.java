package io.srdnic.cli.pktgen;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One side of a two-process run: this same program, started as a child JVM (inside a network
 * namespace when given), talked to by lines on its stdin and stdout. Its stderr is passed through.
 * Used by pktgen and by perf.
 */
public final class PeerProcess implements AutoCloseable {
    private static final String EOF = "\u0000eof";
    /** What {@link #next} returns once the process's stdout has ended. */
    public static final String END = EOF;
    private final String role;
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private PeerProcess(String role, Process process) {
        this.role = role;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        // Its stderr copied line by line to this JVM's System.err (not inherited at the descriptor):
        // what a caller that captures System.err (a test's assertion message) sees too.
        Thread errors = new Thread(this::pumpErrors, "srdnic-peer-" + role + "-stderr");
        errors.setDaemon(true);
        errors.start();
        Thread reader = new Thread(this::pump, "srdnic-peer-" + role);
        reader.setDaemon(true);
        reader.start();
    }

    /** The JVM options of a peer unless its starter chooses others: a serial collector, a 512 MiB heap. */
    public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-XX:+UseSerialGC", "-Xmx512m");

    /** Starts {@code srdnic <args>} in a new JVM, inside {@code namespace} unless it is null. */
    public static PeerProcess start(String role, String namespace, List<String> args) {
        return start(role, namespace, DEFAULT_JVM_OPTIONS, args);
    }

    /** As {@link #start(String, String, List)}, with these JVM options (heap, collector) instead of the defaults. */
    public static PeerProcess start(String role, String namespace, List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        if (namespace != null) {
            command.addAll(List.of("ip", "netns", "exec", namespace));
        }
        command.add(System.getProperty("java.home") + "/bin/java");
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("srdnic.jar", System.getProperty("java.class.path"))));
        // Extra JVM options for both sides (a profiler's agent, a perf map, GC logging).
        String extra = System.getenv("SRDNIC_PEER_JAVA_OPTS");
        if (extra != null && !extra.isBlank()) {
            command.addAll(List.of(extra.trim().split("\\s+")));
        }
        command.add("io.srdnic.cli.Srdnic");
        command.addAll(args);
        try {
            return new PeerProcess(role, new ProcessBuilder(command).start());
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the " + role + " side: " + e.getMessage(), e);
        }
    }

    private void pumpErrors() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                System.err.println(line);
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                lines.add(line);
            }
        } catch (IOException ignored) {
            // the process ended
        }
        lines.add(EOF);
    }

    /** Waits for a stdout line starting with {@code prefix}; fails if the side exits or the time runs out. */
    public String await(String prefix, long timeoutMillis) {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        try {
            while (true) {
                String line = lines.poll(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
                if (line == null) {
                    throw new IllegalStateException("the " + role + " side printed no '" + prefix + "' within " + timeoutMillis + " ms");
                }
                if (line == EOF) {
                    throw new IllegalStateException("the " + role + " side exited (status " + process.waitFor() + ") before '" + prefix
                            + "': see its log above");
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
                System.out.println(line);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the " + role + " side", e);
        }
    }

    /**
     * The next stdout line, waiting up to {@code timeoutMillis}: null if none came, {@link #END} once
     * the process has closed its stdout (and for ever after).
     */
    public String next(long timeoutMillis) {
        try {
            String line = lines.poll(timeoutMillis, TimeUnit.MILLISECONDS);
            if (line == EOF) {
                lines.add(EOF);
                return END;
            }
            return line;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the " + role + " side", e);
        }
    }

    /** Waits for the process to exit (up to {@code timeoutMillis}, then ends it) and returns its exit status. */
    public int exitStatus(long timeoutMillis) {
        try {
            if (!process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
                process.destroy();
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
            return process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return -1;
        }
    }

    /** The exit status if the process ends within {@code timeoutMillis}, else -1 (and it keeps running). */
    public int exitStatusWithin(long timeoutMillis) throws InterruptedException {
        return process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    public long pid() {
        return process.pid();
    }

    /** Completes with the exit status when the process ends, however it ends. */
    public CompletableFuture<Integer> onExit() {
        return process.onExit().thenApply(Process::exitValue);
    }

    /** Closes the process's stdin: a pktgen side takes it as leave to close its port and exit. */
    public void closeStdin() {
        try {
            stdin.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    public void send(String line) {
        try {
            stdin.write(line + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new IllegalStateException("the " + role + " side is gone: " + e.getMessage(), e);
        }
    }

    /** Every stdout line from here until the process closes it; throws if that takes longer than {@code timeoutMillis}. */
    public List<String> linesUntilEnd(long timeoutMillis) {
        List<String> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            String line = next(1000);
            if (line == END) {
                return out;
            }
            if (line != null) {
                out.add(line);
            }
        }
        throw new AssertionError("no end of output from the " + role + " within " + timeoutMillis + " ms: " + out);
    }

    /** SIGKILL, as {@code kill -9}: no shutdown hook runs; waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops a process that does not end on its own (a dataplane): SIGTERM, its orderly shutdown, then SIGKILL after 30 s. */
    public void terminate() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                System.err.println("srdnic: the " + role + " did not stop within 30 s of SIGTERM: killed");
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    @Override
    public void close() {
        closeStdin();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroy(); // SIGTERM: its EAL shutdown hook cleans up
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
