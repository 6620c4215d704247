package io.srdnic.cli.nbd;

import io.srdnic.nbd.ServerLimits;
import picocli.CommandLine.Option;

/** The NBD server's limits on its clients, shared by {@code srdnic nbd} and {@code srdnic nbd-local} (a picocli mixin). */
public final class NbdServerOptions {
    @Option(names = "--reply-timeout", defaultValue = "30", paramLabel = "SECONDS",
        description = "Hang up on a client that takes no reply, or sends no more of a write's payload (not 1 MiB of either), for this "
                + "long: it has stopped reading or sending (default ${DEFAULT-VALUE}).")
    int replyTimeoutSeconds;

    @Option(names = "--max-connections", defaultValue = "64", paramLabel = "N",
        description = "Clients served at once; more are refused at accept (default ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--large-requests", paramLabel = "N",
        description = "Requests over 256 KiB in flight at once across all clients, a buffer of the maximum payload (32 MiB) each;"
            + " more wait (default: half the JVM's direct memory in such buffers, 1 to 8).")
    Integer largeRequests;

    public ServerLimits limits() {
        if (replyTimeoutSeconds < 1) {
            throw new IllegalArgumentException("--reply-timeout must be at least 1 second: " + replyTimeoutSeconds);
        }
        ServerLimits l = ServerLimits.defaults().withReplyTimeoutMillis(replyTimeoutSeconds * 1000L).withMaxConnections(maxConnections);
        return largeRequests == null ? l : l.withLargeRequests(largeRequests);
    }
}
