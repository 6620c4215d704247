package io.srdnic.dataplane.attach;

/**
 * Who may connect to a dataplane's control socket and how much of it they may hold: the allow rule
 * (numeric uids and gids), the socket's group ({@code -1}: the dataplane's own; the socket is
 * always mode 0660), at most {@code maxConnections} connections at once and
 * {@code maxConnectionsPerUid} per uid (a connection beyond either is told why and closed at once,
 * so idle connections cannot exhaust the dataplane's descriptors), and {@code openTimeoutMillis} for
 * a connection to send OPEN before it is closed.
 */
public record AttachPolicy(AllowRule allow, int socketGid, int maxConnections, int maxConnectionsPerUid, long openTimeoutMillis) {
    public static final int DEFAULT_MAX_CONNECTIONS = 256;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_UID = 64;
    public static final long DEFAULT_OPEN_TIMEOUT_MILLIS = 5_000;

    public AttachPolicy {
        if (maxConnections < 1 || maxConnectionsPerUid < 1 || openTimeoutMillis < 1) {
            throw new IllegalArgumentException("connection limits and the OPEN timeout must be positive: " + maxConnections + ", "
                + maxConnectionsPerUid + ", " + openTimeoutMillis + " ms");
        }
    }

    /** {@code allow} with the default limits and group. */
    public static AttachPolicy of(AllowRule allow) {
        return new AttachPolicy(allow, -1, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_UID, DEFAULT_OPEN_TIMEOUT_MILLIS);
    }
}
