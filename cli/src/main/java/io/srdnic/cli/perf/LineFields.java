package io.srdnic.cli.perf;

import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code key=value} fields of one side-channel line, in order; a word without '=' is skipped. */
final class LineFields {
    private LineFields() {
    }

    static Map<String, String> parse(String line) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String kv : line.trim().split("\\s+")) {
            String[] p = kv.split("=", 2);
            if (p.length == 2) {
                f.put(p[0], p[1]);
            }
        }
        return f;
    }
}
