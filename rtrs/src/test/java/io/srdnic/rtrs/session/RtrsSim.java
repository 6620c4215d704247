package io.srdnic.rtrs.session;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.rtrs.client.ClientConfig;
import io.srdnic.rtrs.client.PathAddress;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.rtrs.server.RtrsServer;
import io.srdnic.rtrs.server.RtrsServerHandler;
import io.srdnic.rtrs.server.ServerConfig;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Test fixture: a client and a server host joined by {@code links} links on a simulated network,
 * each link a pair of hosts of its own (client side 1..n, server side n+1..2n), so that cutting
 * one host's link takes exactly one path down. One thread drives both, in virtual time.
 */
final class RtrsSim implements AutoCloseable {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final long MS = 1_000_000L;
    final SimWorld world;
    final List<Context> clientLinks = new ArrayList<>();
    final List<Context> serverLinks = new ArrayList<>();
    final MemoryDisk disk;
    final RtrsServer server;
    RtrsClient client;

    RtrsSim(long seed, int links, ServerConfig serverConfig, int diskBytes) {
        this(seed, links, serverConfig, diskBytes, null);
    }

    /** As above, with {@code handler} answering instead of the memory disk (which stays, unused). */
    RtrsSim(long seed, int links, ServerConfig serverConfig, int diskBytes, RtrsServerHandler handler) {
        world = new SimWorld(seed, 4, LinkConfig.DEFAULT);
        for (int i = 0; i < links; i++) {
            clientLinks.add(Context.open(Device.sim(world)));
        }
        for (int i = 0; i < links; i++) {
            serverLinks.add(Context.open(Device.sim(world)));
        }
        disk = new MemoryDisk(diskBytes);
        server = RtrsServer.open(serverConfig, serverLinks, handler != null ? handler : disk);
    }

    /** Server config for tests: 16 chunks of 16 KiB, heartbeats every 50 ms. */
    static ServerConfig smallServer() {
        return new ServerConfig().queueDepth(16).chunkSize(16 * 1024).heartbeat(50 * MS, 3);
    }

    static ClientConfig smallClient() {
        return new ClientConfig().sessionName("sim-client").ioConnections(2).heartbeat(50 * MS, 3).reconnect(100 * MS, -1)
            .connectTimeout(1000 * MS);
    }

    List<PathAddress> addresses() {
        List<PathAddress> a = new ArrayList<>();
        for (int i = 0; i < clientLinks.size(); i++) {
            a.add(new PathAddress(clientLinks.get(i), serverLinks.get(i).ip()));
        }
        return a;
    }

    RtrsClient connect(ClientConfig config) {
        client = RtrsClient.open(config, addresses());
        assertTrue(run(client::connected, 3000 * MS), "session connected");
        return client;
    }

    long now() {
        return clientLinks.get(0).now();
    }

    /** Polls client and server until {@code done} or {@code virtualNanos} passed; whether done. */
    boolean run(BooleanSupplier done, long virtualNanos) {
        long end = now() + virtualNanos;
        while (!done.getAsBoolean()) {
            if (now() - end >= 0) {
                return false;
            }
            if (client != null) {
                client.poll();
            }
            server.poll();
        }
        return true;
    }

    /** Cuts (or restores) link {@code i}: both its hosts' links, as a pulled cable. */
    void cut(int i, boolean dead) {
        world.blackholeHost(1 + i, dead);
        world.blackholeHost(1 + clientLinks.size() + i, dead);
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        server.close();
        for (Context c : clientLinks) {
            c.close();
        }
        for (Context c : serverLinks) {
            c.close();
        }
        world.close();
    }
}
