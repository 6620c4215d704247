package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.AttachedSrdTest.App;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one pass of the attach server's loop does with a client's work: a send the client posted
 * leaves in the pass that takes it from the ring, not one pass later. Every pass a record waits
 * is a whole loop of every port and client added to each message's latency. Served CQs take
 * completions without running a cycle of their own ({@code CompletionQueue.pollCompleted}, tested
 * in VerbsSimTest), so it is the pass's order — posts, then the ports' cycles — that sends it:
 * with the cycles first this fails.
 */
class AttachServerDutyCycleTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    @Test
    void shouldTransmitAPostedSendInThePassThatTakesItFromTheRing() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 0);
             App b = new App(dir, 1, 4)) {
            AddressHandle toB = a.to(b);
            w.pause(true);
            try {
                long now = System.nanoTime();
                // A pass at the same time as the one below: that one has no control turn (whose CM poll
                // may run cycles of its own), only the clients' rings and the ports' cycles.
                w.onLoop(() -> w.server.doWork(now));
                assertEquals(0, a.send(toB, b, 9, "ping"));
                boolean unsent = w.onLoop(() -> {
                    w.server.doWork(now);
                    return w.served(0).dataplane().transport.hasPostedWork();
                });
                assertFalse(unsent, "the send was still in the dataplane (posted, or built and not flushed) when its pass ended");
                assertEquals(1L, w.onLoop(() -> w.served(0).counters().get("tx_data")));
            } finally {
                w.pause(false); // else the clients' close waits for a loop that never answers
            }
            assertEquals(WcStatus.SUCCESS, b.await().status());
        }
    }
}
