package io.srdnic.dataplane;

import io.srdnic.dataplane.attach.AttachServer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

/**
 * An lcore's client duty: its attach server's pass — clients' posts, its contexts' duty cycles,
 * completions to the clients' rings, and the control sockets ({@link AttachServer#doWork}) — at the
 * lcore's pass time. The server's lifetime is the lcore's, which opens and closes it.
 */
public final class ClientsDuty implements Agent {
    private final AttachServer server;
    private final NanoClock clock;

    /** {@code clock}: the lcore's pass time, read by every duty of the pass. */
    public ClientsDuty(AttachServer server, NanoClock clock) {
        this.server = server;
        this.clock = clock;
    }

    @Override
    public String roleName() {
        return "clients";
    }

    @Override
    public int doWork() {
        return server.doWork(clock.nanoTime());
    }
}
