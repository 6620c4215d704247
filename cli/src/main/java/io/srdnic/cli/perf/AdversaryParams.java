package io.srdnic.cli.perf;

import java.util.Map;

/**
 * What both sides of an adversary run agree on, sent by the victim in its first side-channel line
 * ({@code PARAMS key=value ...}): message size, sends in flight, how long the stream runs, how long
 * each side waits for its last sends to complete, the run's id and time limit.
 */
record AdversaryParams(int size, int window, int recvDepth, long streamNanos, long drainNanos, int runId, long timeLimitNanos) {

    String line() {
        return "size=" + size + " window=" + window + " recv_depth=" + recvDepth + " stream_ns=" + streamNanos + " drain_ns=" + drainNanos
            + " run_id=" + runId + " time_limit_ns=" + timeLimitNanos;
    }

    static AdversaryParams parse(String line) {
        Map<String, String> f = LineFields.parse(line);
        try {
            return new AdversaryParams(Integer.parseInt(f.get("size")), Integer.parseInt(f.get("window")),
                    Integer.parseInt(f.get("recv_depth")),
                Long.parseLong(f.get("stream_ns")), Long.parseLong(f.get("drain_ns")), Integer.parseInt(f.get("run_id")),
                Long.parseLong(f.get("time_limit_ns")));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bad PARAMS line '" + line + "': " + e.getMessage(), e);
        }
    }

    /** The stream id of each side's messages: different for the two sides and from run to run. */
    int streamId(boolean victim) {
        return runId * 2 + (victim ? 1 : 0);
    }
}
