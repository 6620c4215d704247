package io.srdnic.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs the srdnic command in this JVM, capturing stdout and stderr (with what the processes it
 * starts write to theirs: PeerProcess copies it to System.err), and reads its last-line JSON.
 */
record CliRun(int status, String stdout, String stderr) {

    CliRun(int status, String stdout) {
        this(status, stdout, "");
    }

    static CliRun of(String... args) {
        PrintStream original = System.out;
        PrintStream originalErr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        ByteArrayOutputStream capturedErr = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new TeeStream(capturedErr, originalErr), true, StandardCharsets.UTF_8));
        int status;
        try {
            status = Srdnic.run(args);
        } finally {
            System.setOut(original);
            System.setErr(originalErr);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        original.print(out);
        return new CliRun(status, out, capturedErr.toString(StandardCharsets.UTF_8));
    }

    /** stdout, then stderr (the command's and its child processes'): for an assertion's message. */
    String output() {
        return stdout + "\n--- stderr (srdnic and the processes it started) ---\n" + stderr;
    }

    /** Writes to both: stderr is captured and still shown as it comes. */
    private static final class TeeStream extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        TeeStream(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int x) throws IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public synchronized void write(byte[] bytes, int off, int len) throws IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
            b.flush();
        }
    }

    /** The JSON object on the last line, as field name to raw value. */
    Map<String, String> json() {
        String[] lines = stdout.strip().split("\n");
        String last = lines[lines.length - 1];
        if (!last.startsWith("{")) {
            throw new AssertionError("last line is not JSON: " + last);
        }
        Map<String, String> fields = new HashMap<>();
        for (String kv : last.replaceAll("[{}\"]", "").split(",")) {
            String[] p = kv.split(":", 2);
            fields.put(p[0], p[1]);
        }
        return fields;
    }

    long number(String field) {
        return Long.parseLong(json().get(field));
    }

    static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }
}
