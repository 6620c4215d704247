package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachServer;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.AttachedSrdTest.App;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dataplane that serves both ends of a link (the README's one-machine setup, two ports joined by
 * one memif socket): a message that port 1's cycle sends to port 0 lands, and is in the client's
 * completion ring, in the pass that sent it — although port 0's cycle ran before port 1's in that
 * pass, it runs once more after a later port did work. So a ping-pong round trip takes two passes
 * of the dataplane, not three; each pass a reply waits is a whole loop of every port and client.
 * Two hosts of a simulated network whose links take no time (a frame sent is due at once, as a
 * frame in a memif or net_ring queue is), each a context driven at the pass's time by this thread,
 * as an lcore drives its ports' contexts.
 */
class AttachServerReplyPassTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final LinkConfig INSTANT = LinkConfig.builder().delayNanos(0).bitsPerSecond(Long.MAX_VALUE).build();

    @TempDir
    Path dir;
    private SimNetwork network;
    private AttachServer server;
    private long now = 1_000_000;

    /** One pass of the server at the current time; {@code advance}: a later time (its control turn comes every 50 µs of it). */
    private void pass(boolean advance) {
        if (advance) {
            now += 1_000;
            network.clock().advanceTo(now);
        }
        server.doWork(now);
    }

    /** Runs passes while another thread makes {@code what} (a client's control calls need them). */
    private <T> T whilePassing(Supplier<T> what) {
        CompletableFuture<T> made = CompletableFuture.supplyAsync(what);
        while (!made.isDone()) {
            pass(true);
        }
        return made.join();
    }

    @Test
    void shouldLandAReplyFromALaterPortInThePassThatSendsIt() throws Exception {
        network = new SimNetwork(7, SimNetwork.Config.builder().fabricPath(INSTANT).pathCount(1).poolSize(4096).build());
        Context port0 = Context.open(Device.of("p0", network.addHost(SimWorld.macOf(1), INSTANT), network.clock()::now),
            new ContextConfig().ip(SimWorld.ipOf(1)));
        Context port1 = Context.open(Device.of("p1", network.addHost(SimWorld.macOf(2), INSTANT), network.clock()::now),
            new ContextConfig().ip(SimWorld.ipOf(2)));
        server = new AttachServer(dir, List.of(port0, port1), AllowRule.ownUidOrRoot(), dir);
        try {
            App a = whilePassing(() -> new App(dir, 0, 4));
            App b = whilePassing(() -> new App(dir, 1, 4));
            AddressHandle toB = whilePassing(() -> a.to(b));
            AddressHandle toA = whilePassing(() -> b.to(a));
            // One exchange first, each way: the flows' first messages open their SRD contexts.
            assertEquals(0, a.send(toB, b, 1, "ping"));
            assertEquals(0, b.send(toA, a, 2, "pong"));
            for (int i = 0; i < 20; i++) {
                pass(true);
            }
            assertEquals(2, drain(a) + drain(b), "the first exchange's receives");
            pass(true);
            // B (port 1) answers A (port 0): posted, sent, landed and completed into A's ring in one pass.
            // The pass runs at the time of the one before, so it has no control turn of its own.
            assertEquals(0, b.send(toA, a, 3, "pong"));
            pass(false);
            int n = a.cq.poll(a.wcs);
            assertEquals(1, n, "A's receive completion in its ring after the pass that took B's send");
            assertEquals(WcStatus.SUCCESS, a.wcs[0].status());
            assertEquals(WcOpcode.RECV_WITH_IMM, a.wcs[0].opcode());
            whilePassing(() -> {
                a.close();
                b.close();
                return null;
            });
        } finally {
            server.close();
            port0.close();
            port1.close();
            network.close();
        }
    }

    /** Polls away what is in {@code app}'s completion ring; returns the receive completions. */
    private static int drain(App app) {
        int receives = 0;
        int n;
        while ((n = app.cq.poll(app.wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                receives += app.wcs[i].opcode() == WcOpcode.RECV_WITH_IMM ? 1 : 0;
            }
        }
        return receives;
    }
}
