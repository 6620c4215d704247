package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachInternals;
import io.srdnic.dataplane.attach.ClientQuota;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.AllocPdRequest;
import io.srdnic.verbs.attach.control.CmRequest;
import io.srdnic.verbs.attach.control.ControlMessage;
import io.srdnic.verbs.attach.control.CreateAhRequest;
import io.srdnic.verbs.attach.control.CreateCqRequest;
import io.srdnic.verbs.attach.control.DestroyRequest;
import io.srdnic.verbs.attach.control.ErrorReply;
import io.srdnic.verbs.attach.control.HandleReply;
import io.srdnic.verbs.attach.control.OpenXrcdRequest;
import io.srdnic.verbs.attach.control.RegisterMrRequest;
import io.srdnic.verbs.cm.CmId;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Containment: what one client does to its own records, ring indexes, sizes and shared file stops
 * neither the dataplane's loop nor the other clients. Each test runs a hostile client
 * ({@link HostileClient}: the control protocol and the rings written by hand) beside a
 * well-behaved tenant streaming SRD and RC ({@link WellBehavedTraffic}), which must lose nothing
 * and never wait longer than {@link #STALL_BOUND_NANOS} for a round.
 */
class AttachedContainmentTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    /**
     * The longest a well-behaved client's round (an SRD and an RC message, each sent, received and
     * completed) may take while another client is fenced: the fence costs one pass plus the
     * reclaim of that client's objects (bounded by its quota). Generous: this is a loaded 2-core
     * machine whose threads are descheduled for tens of milliseconds at a time.
     */
    static final long STALL_BOUND_NANOS = TimeUnit.SECONDS.toNanos(2);

    @TempDir
    Path dir;
    /** The dataplane (two simulated ports), the well-behaved tenant on it, and the rounds it had done when the hostile one began. */
    private AttachedWorld w;
    private WellBehavedTraffic traffic;
    private long before;

    @BeforeEach
    void startTheDataplaneAndTheWellBehavedTenant() {
        w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot());
        traffic = new WellBehavedTraffic(dir);
        traffic.awaitMore(20);
        before = traffic.rounds();
    }

    @AfterEach
    void stop() {
        traffic.close();
        w.close();
    }

    private static void assertUnharmed(WellBehavedTraffic traffic, long before) {
        traffic.awaitMore(200);
        assertNull(traffic.failure(), "the well-behaved client's traffic");
        assertTrue(traffic.rounds() >= before + 200, "rounds: " + traffic.rounds() + " after " + before);
        assertTrue(traffic.longestRoundNanos() < STALL_BOUND_NANOS, "longest round " + traffic.longestRoundNanos() / 1000 + " µs");
    }

    /** Its next completion (the client side of its completion ring), waiting up to 5 s; null if none came. */
    private static long[] nextCompletion(ShmRing cq) {
        return HostileClient.nextCompletion(cq);
    }

    @Test
    void shouldCompleteASendWhoseSgeLengthsOverflowAnIntWithALengthError() throws Exception {
        try (HostileClient bad = new HostileClient(dir, 0, 1L << 28, 1 << 16)) {
            int pd = bad.allocPd();
            HandleReply cq = bad.createCq(64);
            HandleReply qp = bad.srdQp(pd, cq.handle(), 16, AttachedSrdTest.QKEY);
            int lkey = bad.register(pd, 0, 1L << 28);
            int ah = bad.addressHandle(pd, traffic.srdPeer());
            // eight SGEs over the same 256 MiB region: each one inside it, their sum 2^31, past an int
            long[] sges = new long[3 * 8];
            for (int i = 0; i < 8; i++) {
                sges[3 * i] = 0;
                sges[3 * i + 1] = 1L << 28;
                sges[3 * i + 2] = lkey;
            }
            ShmRing sq = bad.sendRing(qp);
            HostileClient.sendRecord(sq, sq.claim(), 77, ah, traffic.srdPeerQpn(), AttachedSrdTest.QKEY, sges);
            sq.publish();
            long[] wc = nextCompletion(bad.completionRing(cq));
            assertTrue(wc != null, "the overflowing send completes");
            assertEquals(77, wc[0]);
            assertEquals(WcStatus.LOCAL_LENGTH_ERROR, (int) wc[1]);
            assertUnharmed(traffic, before);
        }
    }

    @Test
    void shouldSurviveACompletionConsumerIndexChangedDuringAPass() throws Exception {
        try (HostileClient bad = new HostileClient(dir, 0, 1 << 20, 1 << 16)) {
            int pd = bad.allocPd();
            HandleReply cq = bad.createCq(64);
            HandleReply qp = bad.srdQp(pd, cq.handle(), 64, AttachedSrdTest.QKEY);
            int ah = bad.addressHandle(pd, traffic.srdPeer());
            ShmRing sq = bad.sendRing(qp);
            ShmRing completions = bad.completionRing(cq);
            // Sends naming no region: each one the dataplane refuses writes a completion into the
            // ring, while another thread swings the ring's consumer index between "empty" and
            // "full", so that any second read of it within a pass disagrees with the first. (Its
            // values are legal when written, but may be stale by the time the dataplane reads them:
            // then the dataplane finds the index impossible and fences the client, which is fine too.)
            long[] noRegion = {0, 64, 0x7777};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            Thread flipper = new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    long produced = HostileClient.index(completions, ShmRing.PRODUCER_OFFSET);
                    HostileClient.setIndex(completions, ShmRing.CONSUMER_OFFSET, produced);
                    HostileClient.setIndex(completions, ShmRing.CONSUMER_OFFSET, produced - completions.capacity());
                }
            });
            flipper.start();
            long posted = 0;
            while (System.nanoTime() < deadline) {
                long at = sq.claim();
                if (at >= 0) {
                    HostileClient.sendRecord(sq, at, posted++, ah, traffic.srdPeerQpn(), AttachedSrdTest.QKEY, noRegion);
                    sq.publish();
                }
            }
            flipper.join();
            assertUnharmed(traffic, before);
            if (w.counter("ring_corruptions") == 0) {
                // not fenced by a stale read: the dataplane took the client's sends all along
                assertTrue(posted > 1000, "posted " + posted);
                // and an impossible index fences it, told why
                long produced = HostileClient.index(completions, ShmRing.PRODUCER_OFFSET);
                HostileClient.setIndex(completions, ShmRing.CONSUMER_OFFSET, produced + 1000);
            }
            assertTrue(bad.awaitDropped());
            assertFalse(bad.errors.isEmpty(), "an ERROR before the socket closed");
            assertTrue(bad.errors.get(0).contains("ring index"), bad.errors.toString());
            assertEquals(1, w.counter("ring_corruptions"));
            assertUnharmed(traffic, traffic.rounds());
        }
    }

    @Test
    void shouldFenceAClientWhoseCmPumpFaults() throws Exception {
        try (HostileClient bad = new HostileClient(dir, 0, 1 << 20, 1 << 16)) {
            bad.allocPd(); // open: its CM events are routed from now on
            // No client request is known to make the CM pump throw (it takes every id state the CM
            // reaches): a test stand-in throws there, as a fault in the client's CM ids would.
            w.onLoop(() -> {
                AttachInternals.failCmPumpOfNewestClient(w.server);
                return null;
            });
            assertTrue(bad.awaitDropped(), "fenced");
            assertTrue(bad.errors.stream().anyMatch(e -> e.contains("fenced") && e.contains("CM")), "told why: " + bad.errors);
            assertEquals(1, w.counter("clients_fenced"));
            assertUnharmed(traffic, before);
        }
    }

    @Test
    void shouldFenceAClientThatTruncatesItsSharedFile() throws Exception {
        try (HostileClient bad = new HostileClient(dir, 0, 1 << 20, 1 << 16)) {
            int pd = bad.allocPd();
            HandleReply cq = bad.createCq(64);
            bad.srdQp(pd, cq.handle(), 64, AttachedSrdTest.QKEY);
            bad.file.truncate(0); // rings and pool gone under the dataplane's mapping: SIGBUS on its next read
            assertTrue(bad.awaitDropped(), "fenced");
            assertTrue(bad.errors.stream().anyMatch(e -> e.contains("shared")), "told why: " + bad.errors);
            assertEquals(1, w.counter("clients_fenced"));
            assertUnharmed(traffic, before);
        }
    }

    @Test
    void shouldFenceAClientThatTruncatesThePoolAMessageIsLandingIn() throws Exception {
        try (HostileClient bad = new HostileClient(dir, 1, 1 << 20, 1 << 16);
             AttachedSrdTest.App sender = new AttachedSrdTest.App(dir, 0, 0)) {
            int pd = bad.allocPd();
            HandleReply cq = bad.createCq(64);
            HandleReply qp = bad.srdQp(pd, cq.handle(), 64, AttachedSrdTest.QKEY);
            long far = (1 << 20) - 4096; // the pool's last page
            int lkey = bad.register(pd, far, 4096);
            ShmRing rq = bad.recvRing(qp);
            HostileClient.recvRecord(rq, rq.claim(), 1, far, 4096, lkey);
            rq.publish();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (HostileClient.index(rq, ShmRing.CONSUMER_OFFSET) < 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // until the dataplane holds the receive
            }
            // The rings stay, the pool's pages go: the dataplane faults only when the message lands.
            bad.file.truncate(bad.info.poolOffset());
            AddressHandle ah = sender.pd.createAddressHandle(bad.info.mac(), bad.info.ip(), bad.info.udpPort());
            SendWr wr = new SendWr().wrId(5).opcode(SendWr.OP_SEND).destination(ah, qp.handle(), AttachedSrdTest.QKEY);
            wr.sge(0).set(sender.mr, 0, 1024);
            assertEquals(0, sender.qp.postSend(wr.numSge(1)));
            assertTrue(bad.awaitDropped(), "fenced");
            assertEquals(1, w.counter("clients_fenced"));
            assertEquals(1, sender.cq.await(sender.wcs, 10, TimeUnit.SECONDS), "the sender hears back");
            assertUnharmed(traffic, before);
        }
    }

    /** The receive queue's depth is the transport's (the lcore posts to it directly): a record past it waits in the ring. */
    @Test
    void shouldLeaveAReceiveTheQueueHasNoRoomForInTheRingUntilAMessageTakesOne() throws Exception {
        try (HostileClient c = new HostileClient(dir, 1, 1 << 20, 1 << 16);
             AttachedSrdTest.App sender = new AttachedSrdTest.App(dir, 0, 0)) {
            int pd = c.allocPd();
            int lkey = c.register(pd, 0, 4 * 4096);
            HandleReply qp = c.srdQp(pd, c.createCq(64).handle(), 3, AttachedSrdTest.QKEY); // a receive queue of 3, in a ring of 4
            ShmRing rq = c.recvRing(qp);
            assertEquals(4, rq.capacity());
            for (int i = 0; i < 4; i++) {
                HostileClient.recvRecord(rq, rq.claim(), i, i * 4096L, 4096, lkey);
                rq.publish();
            }
            awaitConsumer(rq, 3);
            Thread.sleep(100); // passes go by: the fourth has no room
            assertEquals(3, HostileClient.index(rq, ShmRing.CONSUMER_OFFSET), "three posted, the fourth left in the ring");
            AddressHandle ah = sender.pd.createAddressHandle(c.info.mac(), c.info.ip(), c.info.udpPort());
            SendWr wr = new SendWr().wrId(5).opcode(SendWr.OP_SEND).destination(ah, qp.handle(), AttachedSrdTest.QKEY);
            wr.sge(0).set(sender.mr, 0, 1024);
            assertEquals(0, sender.qp.postSend(wr.numSge(1)));
            awaitConsumer(rq, 4); // the message took a receive: the fourth now has room
            assertEquals(4, HostileClient.index(rq, ShmRing.CONSUMER_OFFSET));
            assertEquals(0, c.errors.size(), "nothing refused: " + c.errors);
        }
    }

    private static void awaitConsumer(ShmRing ring, long index) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (HostileClient.index(ring, ShmRing.CONSUMER_OFFSET) < index && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    @Test
    void shouldRefuseCqDepthsBeyondTheClientsQuotaBeforeAllocatingThem() throws Exception {
        try (HostileClient bad = new HostileClient(dir, 0, 1 << 16, 1L << 30)) {
            long entries = 0;
            int made = 0;
            int refused = 0;
            // as many 1M-deep CQs as the ring area holds (21): ~37 MB of the dataplane's heap each
            for (int i = 0; i < 21; i++) {
                if (bad.call(new CreateCqRequest(1 << 20)) instanceof ErrorReply e) {
                    assertTrue(e.message().contains("quota"), e.message());
                    refused++;
                } else {
                    made++;
                    entries += 1 << 20;
                }
            }
            assertTrue(entries <= ClientQuota.DEFAULTS.cqEntries(), made + " CQs of 1M entries made");
            assertTrue(refused > 0);
            assertUnharmed(traffic, before);
        }
    }

    /** Makes objects with {@code make} until one is refused; returns how many were made, checking the refusal names the quota. */
    private static int untilRefused(HostileClient bad, IntFunction<ControlMessage> make,
                                    int atMost) throws Exception {
        for (int i = 0; i < atMost; i++) {
            if (bad.call(make.apply(i)) instanceof ErrorReply e) {
                assertTrue(e.message().contains("quota"), e.message());
                return i;
            }
        }
        return atMost;
    }

    @Test
    void shouldRefuseEachQuotaPastItsLimitAndLeakNothing() throws Exception {
        ClientQuota q = ClientQuota.DEFAULTS;
        try (HostileClient bad = new HostileClient(dir, 0, 1 << 20, 1 << 20)) {
            assertEquals(q.pds(), untilRefused(bad, i -> new AllocPdRequest(), q.pds() + 8));
            int pd = 1;
            assertEquals(q.mrs(), untilRefused(bad, i -> new RegisterMrRequest(pd, 0, 4096, i * 4096L,
                Access.LOCAL_WRITE), q.mrs() + 8));
            Context peer = traffic.srdPeer();
            assertEquals(q.ahs(), untilRefused(bad, i -> new CreateAhRequest(pd, peer.mac(), peer.ip(),
                peer.udpPort()), q.ahs() + 8));
            assertEquals(q.cqs(), untilRefused(bad, i -> new CreateCqRequest(1), q.cqs() + 8));
            assertEquals(q.xrcds(), untilRefused(bad, i -> new OpenXrcdRequest(), q.xrcds() + 8));
            assertEquals(q.cmIds(), untilRefused(bad, i -> CmRequest.of(
                CmRequest.CREATE, 0, CmId.PS_TCP, -1), q.cmIds() + 8));
            assertEquals(6, w.server.counters().get("quota_refusals"), "each refusal counted, as an operator reads them");
            assertEquals(0, w.server.counters().get("total_quota_refusals"));
            // a refused create left nothing behind: one destroyed, one made again
            bad.handle(new DestroyRequest(DestroyRequest.CQ, 1));
            bad.createCq(1);
            // the well-behaved tenant's own objects are its own quota: it still makes what it needs
            try (AttachedSrdTest.App another = new AttachedSrdTest.App(dir, 0, 4)) {
                assertTrue(another.qp.qpNum() > 0);
            }
            assertUnharmed(traffic, before);
        }
    }
}
