package io.srdnic.cli.stat;

import io.srdnic.srd.counters.Counter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What {@code srdnic stat} prints: a screen like {@code ethtool -S}, or one JSON object. */
final class StatView {
    private StatView() {
    }

    /** One screen: a line per file (writer, pid, state), then its counters, value first, right-aligned. */
    static String text(CountersDirectory dir, List<CountersDirectory.FileSnapshot> files, Instant at) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "srdnic stat %s - %s%n", dir.dir(), at));
        if (files.isEmpty()) {
            sb.append(dir.exists() ? "  no counters files (is a dataplane or a context with countersDir running?)\n"
                : "  no such directory (is a dataplane or a context with countersDir running?)\n");
        }
        for (CountersDirectory.FileSnapshot f : files) {
            sb.append(String.format(Locale.ROOT, "%n%s: %s, pid %d, %s%s%n", f.name(), f.writer(), f.pid(), describe(f),
                f.refused() > 0 ? ", " + f.refused() + " counters left out (file full)" : ""));
            for (Counter c : f.counters()) {
                sb.append(String.format(Locale.ROOT, "%20d  %s%n", c.value(), c.label()));
            }
        }
        return sb.toString();
    }

    private static String describe(CountersDirectory.FileSnapshot f) {
        return switch (f.status()) {
            case "live" -> "live (updated " + f.heartbeatAgeMillis() + " ms ago)";
            case "closed" -> "closed (final counts)";
            default -> "STALE: pid " + f.pid() + " is not running (its last counts)";
        };
    }

    /** {"dir":..,"files":{name:{"pid":..,"writer":..,"status":..,"heartbeat_age_ms":..,"refused":..,"counters":{label:value}}}}. */
    static Map<String, Object> json(CountersDirectory dir, List<CountersDirectory.FileSnapshot> files) {
        Map<String, Object> byName = new LinkedHashMap<>();
        for (CountersDirectory.FileSnapshot f : files) {
            Map<String, Object> counters = new LinkedHashMap<>();
            f.counters().forEach(c -> counters.put(c.label(), c.value()));
            Map<String, Object> file = new LinkedHashMap<>();
            file.put("pid", f.pid());
            file.put("writer", f.writer());
            file.put("status", f.status());
            file.put("heartbeat_age_ms", f.heartbeatAgeMillis());
            file.put("refused", f.refused());
            file.put("counters", counters);
            byName.put(f.name(), file);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("dir", dir.dir().toString());
        out.put("files", byName);
        return out;
    }
}
