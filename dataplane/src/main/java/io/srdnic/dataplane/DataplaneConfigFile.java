package io.srdnic.dataplane;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code srdnic dataplane --config FILE}: the dataplane's options in a file, one {@code key = value}
 * a line, {@code #} starting a comment. The keys are the long options without their dashes
 * ({@code port} again for each port, {@code cpu} a comma list, {@code busy-spin = true}) and
 * {@code set.KEY} for a transport setting, as {@code --set KEY=VALUE}. An unknown key or a line
 * without {@code =} is refused with its line number, before anything starts.
 */
public final class DataplaneConfigFile {
    /** The options a file may set: those of {@code srdnic dataplane} but {@code --config} itself. */
    static final Set<String> KEYS = Set.of("port", "lcores", "cpu", "dir", "shm-dir", "ip", "memory-mb", "busy-spin", "idle", "log-level",
        "group", "allow-uid", "allow-group", "max-connections", "max-connections-per-uid", "open-timeout-ms");
    static final String SETTING = "set.";
    /** A per-client quota, as {@code --quota NAME=VALUE}. */
    static final String QUOTA = "quota.";
    /** A quota over all clients together, as {@code --total-quota NAME=VALUE}. */
    static final String TOTAL_QUOTA = "total-quota.";

    private final Map<String, List<String>> values = new LinkedHashMap<>();
    private final Map<String, String> settings = new LinkedHashMap<>();
    private final Map<String, String> quotas = new LinkedHashMap<>();
    private final Map<String, String> totalQuotas = new LinkedHashMap<>();

    private DataplaneConfigFile() {
    }

    public static DataplaneConfigFile read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("--config " + file + ": cannot read it (" + e.getMessage() + ")");
        }
        return parse(file.toString(), lines);
    }

    static DataplaneConfigFile parse(String name, List<String> lines) {
        DataplaneConfigFile c = new DataplaneConfigFile();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String text = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (text.isEmpty()) {
                continue;
            }
            int eq = text.indexOf('=');
            String where = name + " line " + (i + 1);
            if (eq <= 0) {
                throw new IllegalArgumentException(where + ": expected key = value, was '" + text + "'");
            }
            String key = text.substring(0, eq).strip();
            String value = text.substring(eq + 1).strip();
            if (value.isEmpty()) {
                throw new IllegalArgumentException(where + ": " + key + " has no value");
            }
            if (key.startsWith(SETTING) && key.length() > SETTING.length()) {
                c.settings.put(key.substring(SETTING.length()), value);
            } else if (key.startsWith(QUOTA) && key.length() > QUOTA.length()) {
                c.quotas.put(key.substring(QUOTA.length()), value);
            } else if (key.startsWith(TOTAL_QUOTA) && key.length() > TOTAL_QUOTA.length()) {
                c.totalQuotas.put(key.substring(TOTAL_QUOTA.length()), value);
            } else if (KEYS.contains(key)) {
                if (!key.equals("port") && c.values.containsKey(key)) {
                    throw new IllegalArgumentException(where + ": " + key + " is set twice (only port repeats)");
                }
                c.values.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
            } else {
                throw new IllegalArgumentException(where + ": no option '" + key + "' (keys: "
                        + String.join(", ", KEYS.stream().sorted().toList())
                    + ", set.KEY for a transport setting, quota.NAME for a per-client quota,"
                    + " total-quota.NAME for one over all clients)");
            }
        }
        return c;
    }

    /** The values of {@code key} in file order (several for port), or an empty list. */
    public List<String> values(String key) {
        return values.getOrDefault(key, List.of());
    }

    /** The one value of {@code key}, or null. */
    public String value(String key) {
        List<String> v = values(key);
        return v.isEmpty() ? null : v.getFirst();
    }

    /** The per-client quotas ({@code quota.NAME = VALUE}), in file order. */
    public Map<String, String> quotas() {
        return quotas;
    }

    /** The quotas over all clients together ({@code total-quota.NAME = VALUE}), in file order. */
    public Map<String, String> totalQuotas() {
        return totalQuotas;
    }

    /** The transport settings ({@code set.KEY = VALUE}), in file order. */
    public Map<String, String> settings() {
        return settings;
    }
}
