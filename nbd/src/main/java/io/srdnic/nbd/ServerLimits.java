package io.srdnic.nbd;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/**
 * What one NBD server lets its clients hold, so that no client can stall another and memory stays
 * bounded however clients behave.
 *
 * @param replyTimeoutMillis a client whose replies, or whose write's payload, make no progress (not the whole of the next
 *     {@link WireWriter#CHUNK} taken or sent) for this long is hung up on: it has stopped reading or sending
 * @param maxConnections clients served at once; one more is refused at accept (its socket closed)
 * @param largeRequests requests over {@link Transmission#SLOT_BUFFER_MAX} in flight at once across
 *     the whole server, each in a buffer of up to the maximum payload (32 MiB); more wait for one
 */
public record ServerLimits(long replyTimeoutMillis, int maxConnections, int largeRequests) {
    public static final long DEFAULT_REPLY_TIMEOUT_MILLIS = 30_000;
    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    /** The most large buffers the default takes, whatever the direct memory. */
    static final int MAX_DEFAULT_LARGE_REQUESTS = 8;
    private static final long LARGE_BUFFER = 32L << 20;

    public ServerLimits {
        if (replyTimeoutMillis < 1) {
            throw new IllegalArgumentException("reply timeout must be at least 1 ms: " + replyTimeoutMillis);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("max connections must be at least 1: " + maxConnections);
        }
        if (largeRequests < 1) {
            throw new IllegalArgumentException("large requests in flight must be at least 1: " + largeRequests);
        }
    }

    /** 30 s, 64 connections, and large buffers for half the JVM's direct memory (1 to 8 of them). */
    public static ServerLimits defaults() {
        return new ServerLimits(DEFAULT_REPLY_TIMEOUT_MILLIS, DEFAULT_MAX_CONNECTIONS, defaultLargeRequests(maxDirectMemory()));
    }

    static int defaultLargeRequests(long maxDirectMemory) {
        return (int) Math.max(1, Math.min(MAX_DEFAULT_LARGE_REQUESTS, maxDirectMemory / 2 / LARGE_BUFFER));
    }

    /** -XX:MaxDirectMemorySize, or the JVM's default for it (the maximum heap) when not set. */
    static long maxDirectMemory() {
        try {
            var diagnostics = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            long set = Long.parseLong(diagnostics.getVMOption("MaxDirectMemorySize").getValue());
            if (set > 0) {
                return set;
            }
        } catch (RuntimeException e) {
            // not HotSpot: fall back to the heap, as HotSpot does when the option is not set
        }
        return Runtime.getRuntime().maxMemory();
    }

    public ServerLimits withReplyTimeoutMillis(long millis) {
        return new ServerLimits(millis, maxConnections, largeRequests);
    }

    public ServerLimits withMaxConnections(int connections) {
        return new ServerLimits(replyTimeoutMillis, connections, largeRequests);
    }

    public ServerLimits withLargeRequests(int requests) {
        return new ServerLimits(replyTimeoutMillis, maxConnections, requests);
    }
}
