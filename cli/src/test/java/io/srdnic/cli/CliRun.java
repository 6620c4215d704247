package io.srdnic.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** Runs the srdnic command in this JVM, capturing stdout, and reads its last-line JSON. */
record CliRun(int status, String stdout) {

    static CliRun of(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        int status;
        try {
            status = Srdnic.run(args);
        } finally {
            System.setOut(original);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        original.print(out);
        return new CliRun(status, out);
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
