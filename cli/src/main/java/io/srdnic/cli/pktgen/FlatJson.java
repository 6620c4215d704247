package io.srdnic.cli.pktgen;

import java.util.LinkedHashMap;
import java.util.Map;

/** Reads the flat JSON objects (no nesting, no commas or quotes inside strings) that srdnic's peer processes print. */
public final class FlatJson {
    private FlatJson() {
    }

    /** Field name to raw value text ({@code null} stays the string "null"). */
    public static Map<String, String> parse(String json) {
        String body = json.strip();
        if (!body.startsWith("{") || !body.endsWith("}")) {
            throw new IllegalArgumentException("not a JSON object: " + json);
        }
        Map<String, String> f = new LinkedHashMap<>();
        for (String kv : body.substring(1, body.length() - 1).split(",")) {
            if (kv.isBlank()) {
                continue;
            }
            String[] p = kv.split(":", 2);
            if (p.length != 2) {
                throw new IllegalArgumentException("bad JSON field '" + kv + "' in " + json);
            }
            f.put(p[0].trim().replace("\"", ""), p[1].trim().replace("\"", ""));
        }
        return f;
    }
}
