package io.srdnic.nbd;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What every connection of one server shares: the limits, the large request buffers, and the
 * counters of what the limits did (clients hung up on for not reading, requests answered ENOMEM,
 * connections refused).
 */
final class ServerResources {
    final ServerLimits limits;
    final LargeBuffers large;
    final AtomicLong stalledClients = new AtomicLong();
    final AtomicLong outOfMemoryReplies = new AtomicLong();
    final AtomicLong refusedConnections = new AtomicLong();

    ServerResources(ServerLimits limits) {
        this.limits = limits;
        this.large = new LargeBuffers(limits.largeRequests());
    }
}
