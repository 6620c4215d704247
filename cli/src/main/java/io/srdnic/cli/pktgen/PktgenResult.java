package io.srdnic.cli.pktgen;

import io.srdnic.cli.Json;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What pktgen measured. {@code mpps} is received frames per second (millions), from the first to
 * the last frame received. A run passes when every sent frame arrived once and intact.
 */
record PktgenResult(long sent, long received, long corrupted, long duplicated, long foreign, long linkDropped, double mpps) {

    /**
     * Every one of {@code expected} frames was sent and arrived once and intact, or was lost where
     * the link counted it as dropped (a kernel socket ring that overflowed): nothing vanished.
     */
    boolean passed(long expected) {
        return sent == expected && lost() <= linkDropped && corrupted == 0 && duplicated == 0;
    }

    long lost() {
        return sent - received;
    }

    String json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sent", sent);
        m.put("received", received);
        m.put("corrupted", corrupted);
        m.put("duplicated", duplicated);
        m.put("foreign", foreign);
        m.put("link_dropped", linkDropped);
        m.put("mpps", mpps);
        return Json.object(m);
    }

    String text() {
        return String.format(Locale.ROOT,
                "sent %d  received %d  corrupted %d  duplicated %d  foreign %d  dropped by the link %d  rate %.3f Mpps",
            sent, received, corrupted, duplicated, foreign, linkDropped, mpps);
    }

    /** Parses the JSON line a peer process printed (flat, as {@link #json()} writes it). */
    static PktgenResult parse(String json) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String kv : json.replaceAll("[{}\"]", "").split(",")) {
            String[] p = kv.split(":", 2);
            f.put(p[0].trim(), p[1].trim());
        }
        return new PktgenResult(Long.parseLong(f.get("sent")), Long.parseLong(f.get("received")),
            Long.parseLong(f.get("corrupted")), Long.parseLong(f.get("duplicated")), Long.parseLong(f.get("foreign")),
            Long.parseLong(f.get("link_dropped")), Double.parseDouble(f.get("mpps")));
    }
}
