package io.srdnic.rtrs.client;

import io.srdnic.rtrs.link.RcRetry;
import io.srdnic.rtrs.protocol.Rtrs;
import io.srdnic.rtrs.server.ServerConfig;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.random.RandomGenerator;

/** A client session's settings (Linux's rtrs_clt_open arguments and rnbd-client's path options). */
public final class ClientConfig {
    String sessionName = "srdnic";
    UUID sessionUuid = UUID.randomUUID();
    int port = ServerConfig.DEFAULT_PORT;
    int ioConnections = Math.max(1, Runtime.getRuntime().availableProcessors());
    long heartbeatIntervalNanos = Rtrs.HB_INTERVAL_MS * 1_000_000L;
    int heartbeatMissedMax = Rtrs.HB_MISSED_MAX;
    long reconnectDelayNanos = 1_000_000_000L;
    int maxReconnectAttempts = -1;
    long connectTimeoutNanos = 2_000_000_000L;
    MpPolicy policy = MpPolicy.MIN_INFLIGHT;
    RcRetry rcRetry = RcRetry.DEFAULT;
    RandomGenerator random = new SplittableRandom(1);

    /** The session's name, sent in each path's INFO_REQ: 1..254 ASCII bytes, no '/' or '.'. */
    public ClientConfig sessionName(String name) {
        this.sessionName = name;
        return this;
    }

    public ClientConfig sessionUuid(UUID uuid) {
        this.sessionUuid = uuid;
        return this;
    }

    public ClientConfig port(int p) {
        this.port = p;
        return this;
    }

    /** IO connections per path (Linux: one per CPU); a path has these and its service connection. */
    public ClientConfig ioConnections(int n) {
        if (n < 1 || n >= Rtrs.MAX_CONNECTIONS) {
            throw new IllegalArgumentException("IO connections per path: 1.." + (Rtrs.MAX_CONNECTIONS - 1) + ", was " + n);
        }
        this.ioConnections = n;
        return this;
    }

    public ClientConfig heartbeat(long intervalNanos, int missedMax) {
        this.heartbeatIntervalNanos = intervalNanos;
        this.heartbeatMissedMax = missedMax;
        return this;
    }

    /** First wait before a reconnect attempt (doubled after each failure, up to 8 times it) and attempts allowed (-1: for ever). */
    public ClientConfig reconnect(long delayNanos, int maxAttempts) {
        this.reconnectDelayNanos = delayNanos;
        this.maxReconnectAttempts = maxAttempts;
        return this;
    }

    /** How long a connect attempt (all connections and the INFO exchange) may take. */
    public ClientConfig connectTimeout(long nanos) {
        this.connectTimeoutNanos = nanos;
        return this;
    }

    /** The RC retry limits every connection of every path is made with (through the CM): how long a silent server is waited for. */
    public ClientConfig rcRetry(RcRetry r) {
        this.rcRetry = Objects.requireNonNull(r);
        return this;
    }

    public ClientConfig policy(MpPolicy p) {
        this.policy = p;
        return this;
    }

    /** The source of the reconnect jitter (seeded: the simulator's runs repeat). */
    public ClientConfig random(RandomGenerator r) {
        this.random = r;
        return this;
    }
}
