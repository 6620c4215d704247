package io.srdnic.rtrs.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One path's statistics, as Linux's sysfs shows them under a path's stats/: reconnects
 * (successful, failed), failovers (IOs this path took over from a failed one), reads and writes
 * (count and bytes), IOs in flight, and the current latency (last heartbeat round trip).
 */
public final class PathStats {
    long reconnectsOk;
    long reconnectsFailed;
    long failovers;
    long reads;
    long readBytes;
    long writes;
    long writeBytes;
    int inflight;
    long latencyNanos;

    public long reconnectsOk() {
        return reconnectsOk;
    }

    public long reconnectsFailed() {
        return reconnectsFailed;
    }

    public long failovers() {
        return failovers;
    }

    public long reads() {
        return reads;
    }

    public long readBytes() {
        return readBytes;
    }

    public long writes() {
        return writes;
    }

    public long writeBytes() {
        return writeBytes;
    }

    public int inflight() {
        return inflight;
    }

    public long latencyNanos() {
        return latencyNanos;
    }

    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("reconnects_ok", reconnectsOk);
        m.put("reconnects_failed", reconnectsFailed);
        m.put("failovers", failovers);
        m.put("reads", reads);
        m.put("read_bytes", readBytes);
        m.put("writes", writes);
        m.put("write_bytes", writeBytes);
        m.put("inflight", (long) inflight);
        m.put("cur_latency_ns", latencyNanos);
        return m;
    }
}
