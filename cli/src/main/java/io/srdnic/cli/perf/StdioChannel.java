package io.srdnic.cli.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The side channel of a child JVM whose parent relays: lines to the peer go out on stdout as
 * {@code OOB <line>}, lines from the peer come in on stdin the same way. Other stdout lines are the
 * child's output, which the parent prints.
 */
final class StdioChannel extends QueuedChannel {
    static final String PREFIX = "OOB ";
    private final PrintStream out;

    StdioChannel(PrintStream out) {
        super("the other side (via the parent)");
        this.out = out;
        Thread reader = new Thread(this::read, "srdnic-perf-stdin");
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith(PREFIX)) {
                    in.add(line.substring(PREFIX.length()));
                }
            }
        } catch (IOException ignored) {
            // the parent is gone
        }
        in.end();
    }

    @Override
    public void send(String line) {
        synchronized (out) {
            out.println(PREFIX + line);
            out.flush();
        }
    }

    @Override
    public void close() {
        // stdin and stdout belong to the process
    }
}
