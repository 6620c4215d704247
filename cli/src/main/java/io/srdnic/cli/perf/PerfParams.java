package io.srdnic.cli.perf;

import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.ThreadingMode;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What one perf run does, as the client sends it to the server in its first side-channel line
 * ({@code PARAMS key=value ...}): the server takes the client's parameters, as perftest's does.
 * {@code ackTimeout}: RC and SRC QPs' local ACK timeout code (4.096 µs × 2^code), set through the
 * CM on both sides; 0 leaves the CM's default.
 */
record PerfParams(Mode mode, Op op, Transport transport, int size, long iters, long warmup, long warmupNanos, int qps, int window,
                  long timeoutNanos, boolean raw, boolean stats, int runId, long timeLimitNanos, boolean corruptPayload, int ackTimeout) {

    /** The largest SEND on SRD and UD: one message is one packet, at most the SRD MTU (less on some links). */
    static final int MAX_SEND_SIZE = 4096;
    /**
     * The largest RDMA WRITE or READ the transport takes, and the largest RC SEND (segmented at the
     * path MTU): TransportDevice.maxRdmaSize(); each side checks its own.
     */
    static final int MAX_RDMA_SIZE = 1 << 30;

    enum Mode { lat, bw }

    /**
     * What one message is: a SEND into a receive the peer posted (ib_send_*), an RDMA WRITE into the
     * server's memory (ib_write_*), or an RDMA READ of it (ib_read_*).
     */
    enum Op {
        send, write, read;

        boolean rdma() {
            return this != send;
        }
    }

    /**
     * The queue-pair types perf runs over: what each side creates, whether the transport loses
     * messages, whether it carries RDMA, and whether it is connected (RC: each QP is taken to RTR and
     * RTS naming the peer's QP and PSN, and segments a SEND at the path MTU, so a SEND may be as long
     * as an RDMA transfer). Another type is one more value here and its connect step in {@link PerfEndpoint}.
     */
    enum Transport {
        srd(QpType.SRD, true, true, false),
        ud(QpType.UD, false, false, false),
        rc(QpType.RC, true, true, true),
        /** SRC QPs in the XRC shape: RC's message layer, every message naming the peer's SRQ. */
        src(QpType.SRC, true, true, true);

        final QpType qpType;
        /** Acknowledged and retransmitted: a message is never lost, so a slow one is waited for. */
        final boolean reliable;
        final boolean rdma;
        /** Connected: a QP talks to one peer QP, set at RTR; a SEND is segmented, up to {@link #MAX_RDMA_SIZE}. */
        final boolean connected;

        Transport(QpType qpType, boolean reliable, boolean rdma, boolean connected) {
            this.qpType = qpType;
            this.reliable = reliable;
            this.rdma = rdma;
            this.connected = connected;
        }

        /** The largest message of {@code op}: one packet for an SRD or UD SEND, else the largest RDMA transfer. */
        int maxSize(Op op) {
            return op.rdma() || connected ? MAX_RDMA_SIZE : MAX_SEND_SIZE;
        }
    }

    /** The same run as it went: latency mode warms up for at least {@code warmupNanos}, so maybe longer than asked. */
    PerfParams withWarmup(long done) {
        return new PerfParams(mode, op, transport, size, iters, done, warmupNanos, qps, window, timeoutNanos, raw, stats, runId,
            timeLimitNanos, corruptPayload, ackTimeout);
    }

    /**
     * Whether each message takes a receive at the server: a SEND, and in latency mode an RDMA WRITE
     * WITH_IMM (bandwidth mode writes without one, and a READ never tells the server).
     */
    boolean serverReceives() {
        return op == Op.send || op == Op.write && latency();
    }

    /** Whether the server answers each message (latency mode, send and write). */
    boolean serverReplies() {
        return latency() && serverReceives();
    }

    /**
     * Whether payload bytes land at the server, to be checked there at the end: RDMA WRITEs, and RC
     * SENDs (their receives all land in one region; SRD and UD SENDs carry no pattern).
     */
    boolean serverChecks() {
        return op == Op.write || checkedSends();
    }

    /**
     * Whether payload bytes land at the client, to be checked there: READs, and in latency mode the
     * server's replies to WRITEs and RC SENDs (each the bytes that arrived there, sent back).
     */
    boolean clientChecks() {
        return op == Op.read || (op == Op.write || checkedSends()) && latency();
    }

    /** Whether the run checks payload bytes anywhere: RDMA, and RC SENDs. */
    boolean checksPayload() {
        return serverChecks() || clientChecks();
    }

    /** RC SENDs carry the pattern and land in one region per side: a SEND of up to 1 GiB needs no receive slots of its size. */
    boolean checkedSends() {
        return op == Op.send && transport.connected;
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
        return "mode=" + mode + " op=" + op + " transport=" + transport + " size=" + size + " iters=" + iters + " warmup=" + warmup
                + " warmup_ns=" + warmupNanos + " qps=" + qps
            + " window=" + window + " timeout_ns=" + timeoutNanos + " raw=" + raw + " stats=" + stats + " run_id=" + runId
            + " time_limit_ns=" + timeLimitNanos + " corrupt_payload=" + corruptPayload + " ack_timeout=" + ackTimeout;
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
            return new PerfParams(Mode.valueOf(f.get("mode")), Op.valueOf(f.getOrDefault("op", "send")),
                    Transport.valueOf(f.get("transport")), Integer.parseInt(f.get("size")),
                Long.parseLong(f.get("iters")), Long.parseLong(f.get("warmup")), Long.parseLong(f.get("warmup_ns")),
                        Integer.parseInt(f.get("qps")),
                Integer.parseInt(f.get("window")), Long.parseLong(f.get("timeout_ns")), Boolean.parseBoolean(f.get("raw")),
                Boolean.parseBoolean(f.get("stats")), Integer.parseInt(f.get("run_id")), Long.parseLong(f.get("time_limit_ns")),
                Boolean.parseBoolean(f.get("corrupt_payload")), ackTimeout(f.getOrDefault("ack_timeout", "0")));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bad PARAMS line '" + line + "': " + e.getMessage(), e);
        }
    }

    /** A client's local ACK timeout code: 0 (the CM's default) or 1..31. */
    private static int ackTimeout(String value) {
        int code = Integer.parseInt(value);
        if (code < 0 || code > 31) {
            throw new IllegalArgumentException("ack_timeout must be 0..31, was " + code);
        }
        return code;
    }

    /** For a context: the threading mode is each side's own choice, not part of the parameters. */
    static ThreadingMode threading(String name) {
        return ThreadingMode.valueOf(name.toUpperCase(Locale.ROOT));
    }
}
