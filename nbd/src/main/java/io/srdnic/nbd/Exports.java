package io.srdnic.nbd;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The exports a server offers, in the order given; the first is the default (the empty name). */
public final class Exports {
    private final Map<String, Export> byName = new LinkedHashMap<>();
    private final Export first;

    public Exports(List<Export> exports) {
        if (exports.isEmpty()) {
            throw new IllegalArgumentException("at least one export");
        }
        for (Export e : exports) {
            if (e.name().getBytes(StandardCharsets.UTF_8).length > 4096) {
                throw new IllegalArgumentException("export name longer than 4096 bytes: " + e.name());
            }
            if (byName.putIfAbsent(e.name(), e) != null) {
                throw new IllegalArgumentException("two exports named " + e.name());
            }
        }
        first = exports.getFirst();
    }

    /** The export of that name; "" names the default export; null if there is none. */
    Export find(String name) {
        return name.isEmpty() ? first : byName.get(name);
    }

    Iterable<Export> all() {
        return byName.values();
    }

    /** Closes every device. */
    public void closeAll() {
        for (Export e : byName.values()) {
            e.device().close();
        }
    }
}
