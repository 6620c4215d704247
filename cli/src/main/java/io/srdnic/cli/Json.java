package io.srdnic.cli;

import java.util.Locale;
import java.util.Map;

/** The one JSON object a command prints last with {@code --json}: numbers, strings, null and nested maps. */
public final class Json {
    private Json() {
    }

    public static String object(Map<String, ?> fields) {
        StringBuilder sb = new StringBuilder("{");
        fields.forEach((k, v) -> {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append('"').append(k).append("\":").append(value(v));
        });
        return sb.append('}').toString();
    }

    private static String value(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Map<?, ?> nested) {
            @SuppressWarnings("unchecked")
            Map<String, ?> fields = (Map<String, ?>) nested;
            return object(fields);
        }
        if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%.6f", d);
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return '"' + v.toString().replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
