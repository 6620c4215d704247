package io.srdnic.cli.perf;

import java.util.Map;

/**
 * What the server saw, from its {@code RESULT} line: messages received, those after the warm-up, and
 * when the first and last of them came; and, when RDMA bytes land at the server, its check of them.
 */
record ServerCounts(long received, long measured, long firstNs, long lastNs, long errors, String firstError, PayloadCheck check) {

    /** Messages per second where they arrived, from the first measured message to the last (0 with fewer than two). */
    double arrivalRate() {
        return measured > 1 && lastNs > firstNs ? (measured - 1) * 1e9 / (lastNs - firstNs) : 0;
    }

    static ServerCounts parse(String line) {
        Map<String, String> f = LineFields.parse(line);
        try {
            return new ServerCounts(Long.parseLong(f.get("received")), Long.parseLong(f.get("measured")), Long.parseLong(f.get("first_ns")),
                Long.parseLong(f.get("last_ns")), Long.parseLong(f.get("errors")), f.get("first_error"), PayloadCheck.of(f));
        } catch (RuntimeException e) {
            throw new IllegalStateException("bad RESULT line from the server: '" + line + "'", e);
        }
    }
}
