package io.srdnic.rnbd.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.rnbd.server.ExportDirectory;
import io.srdnic.rnbd.server.RnbdServer;
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
import java.util.function.UnaryOperator;

/**
 * Test fixture: an RNBD server (its exports given) and RNBD clients on a simulated network, one
 * link per path, each link a pair of hosts of its own so that cutting one takes exactly one path
 * down. One thread drives everything, in virtual time.
 */
final class RnbdSim implements AutoCloseable {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final long MS = 1_000_000L;
    final SimWorld world;
    final List<Context> clientLinks = new ArrayList<>();
    final List<Context> serverLinks = new ArrayList<>();
    final RnbdServer rnbd;
    final RtrsServer server;
    final List<RnbdClient> clients = new ArrayList<>();

    RnbdSim(long seed, int links, ExportDirectory exports) {
        this(seed, links, exports, UnaryOperator.identity());
    }

    /** As above, the RNBD server's requests passing through {@code front} first (a server that behaves otherwise). */
    RnbdSim(long seed, int links, ExportDirectory exports, UnaryOperator<RtrsServerHandler> front) {
        world = new SimWorld(seed, 4, LinkConfig.DEFAULT);
        for (int i = 0; i < links; i++) {
            clientLinks.add(Context.open(Device.sim(world)));
        }
        for (int i = 0; i < links; i++) {
            serverLinks.add(Context.open(Device.sim(world)));
        }
        rnbd = new RnbdServer(exports);
        server = RtrsServer.open(new ServerConfig().queueDepth(16).chunkSize(16 * 1024).heartbeat(50 * MS, 3), serverLinks,
            front.apply(rnbd));
    }

    static ClientConfig clientConfig(String name) {
        return new ClientConfig().sessionName(name).ioConnections(2).heartbeat(50 * MS, 3).reconnect(100 * MS, -1)
            .connectTimeout(1000 * MS);
    }

    /** A client session named {@code name} over every link, up (SESS_INFO answered). */
    RnbdClient connect(String name) {
        List<PathAddress> a = new ArrayList<>();
        for (int i = 0; i < clientLinks.size(); i++) {
            a.add(new PathAddress(clientLinks.get(i), serverLinks.get(i).ip()));
        }
        RnbdClient c = RnbdClient.over(RtrsClient.open(clientConfig(name), a), 64);
        clients.add(c);
        assertTrue(run(() -> c.up() && c.rtrs().connected(), 3000 * MS), "session " + name + " up");
        return c;
    }

    /** Opens a device and runs until the server answered. */
    RnbdDevice open(RnbdClient c, String name, int mode) {
        RnbdDevice d = c.open(name, mode);
        assertTrue(run(() -> d.state() == DeviceState.OPEN || d.state() == DeviceState.FAILED, 1000 * MS), name + ": " + d.state());
        return d;
    }

    long now() {
        return clientLinks.get(0).now();
    }

    /** Polls clients and server until {@code done} or {@code virtualNanos} passed; whether done. */
    boolean run(BooleanSupplier done, long virtualNanos) {
        long end = now() + virtualNanos;
        while (!done.getAsBoolean()) {
            if (now() - end >= 0) {
                return false;
            }
            step();
        }
        return true;
    }

    void step() {
        for (int i = 0; i < clients.size(); i++) {
            clients.get(i).poll();
        }
        server.poll();
        rnbd.poll();
    }

    /** Cuts (or restores) link {@code i}: both its hosts, as a pulled cable. */
    void cut(int i, boolean dead) {
        world.blackholeHost(1 + i, dead);
        world.blackholeHost(1 + clientLinks.size() + i, dead);
    }

    @Override
    public void close() {
        for (RnbdClient c : clients) {
            c.close();
        }
        server.close();
        rnbd.close();
        for (Context c : clientLinks) {
            c.close();
        }
        for (Context c : serverLinks) {
            c.close();
        }
        world.close();
    }
}
