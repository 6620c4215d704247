package io.srdnic.cli.perf;

import io.srdnic.srd.transport.QpType;
import io.srdnic.verbs.ThreadingMode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one perf run does, as the client sends it to the server in its first side-channel line
 * ({@code PARAMS key=value ...}): the server takes the client's parameters, as perftest's does.
 */
record PerfParams(Mode mode, Transport transport, int size, long iters, long warmup, long warmupNanos, int qps, int window,
                  long timeoutNanos, boolean raw, boolean stats, int runId, long timeLimitNanos) {

    enum Mode { lat, bw }

    /**
     * The queue-pair types perf runs over: what each side creates, whether the transport loses
     * messages, and whether it carries RDMA. Another type is one more value here and its connect step
     * in {@link PerfEndpoint}.
     */
    enum Transport {
        srd(QpType.SRD, true, true),
        ud(QpType.UD, false, false);

        final QpType qpType;
        /** Acknowledged and retransmitted: a message is never lost, so a slow one is waited for. */
        final boolean reliable;
        final boolean rdma;

        Transport(QpType qpType, boolean reliable, boolean rdma) {
            this.qpType = qpType;
            this.reliable = reliable;
            this.rdma = rdma;
        }
    }

    /** The same run as it went: latency mode warms up for at least {@code warmupNanos}, so maybe longer than asked. */
    PerfParams withWarmup(long done) {
        return new PerfParams(mode, transport, size, iters, done, warmupNanos, qps, window, timeoutNanos, raw, stats, runId,
            timeLimitNanos);
    }

    /** Round trips or messages including the least warm-up. */
    long total() {
        return warmup + iters;
    }

    boolean latency() {
        return mode == Mode.lat;
    }

    /** Send queue depth per QP: the window in bandwidth mode; a few in latency mode (one ping, its late ACKs). */
    int sendDepth() {
        return latency() ? 64 : window;
    }

    /** Receive queue depth per QP: receives stay posted; in bandwidth mode room for a window and a burst not yet reposted. */
    int recvDepth() {
        return latency() ? 64 : Math.min(8192, Math.max(512, 4 * window));
    }

    /** Completion queue depth per side: every send and receive of every QP could complete before a poll. */
    int cqDepth() {
        return Math.min(1 << 20, qps * (sendDepth() + recvDepth()) + 64);
    }

    String line() {
        return "mode=" + mode + " transport=" + transport + " size=" + size + " iters=" + iters + " warmup=" + warmup + " warmup_ns=" + warmupNanos + " qps=" + qps
            + " window=" + window + " timeout_ns=" + timeoutNanos + " raw=" + raw + " stats=" + stats + " run_id=" + runId
            + " time_limit_ns=" + timeLimitNanos;
    }

    static PerfParams parse(String line) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String kv : line.trim().split("\\s+")) {
            String[] p = kv.split("=", 2);
            if (p.length != 2) {
                throw new IllegalArgumentException("bad PARAMS field '" + kv + "'");
            }
            f.put(p[0], p[1]);
        }
        try {
            return new PerfParams(Mode.valueOf(f.get("mode")), Transport.valueOf(f.get("transport")), Integer.parseInt(f.get("size")),
                Long.parseLong(f.get("iters")), Long.parseLong(f.get("warmup")), Long.parseLong(f.get("warmup_ns")), Integer.parseInt(f.get("qps")),
                Integer.parseInt(f.get("window")), Long.parseLong(f.get("timeout_ns")), Boolean.parseBoolean(f.get("raw")),
                Boolean.parseBoolean(f.get("stats")), Integer.parseInt(f.get("run_id")), Long.parseLong(f.get("time_limit_ns")));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bad PARAMS line '" + line + "': " + e.getMessage(), e);
        }
    }

    /** For a context: the threading mode is each side's own choice, not part of the parameters. */
    static ThreadingMode threading(String name) {
        return ThreadingMode.valueOf(name.toUpperCase(java.util.Locale.ROOT));
    }
}
