package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.request;
import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.wire.RdmaHeader;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every RDMA READ completes, whatever becomes of the responder once it has acknowledged the
 * request: a READ is complete only when its data has arrived, and the data comes in the
 * responder's own READ_RESPONSE packets, so a responder that stops answering must not leave the
 * read waiting forever (it holds a send-queue entry, and the application its buffer).
 * <p>
 * Found by {@code srdnic sim --ops rdma-read} under QP destroys, restarts and address-handle
 * destroys (SimOpsTest's seeded disruptions). An acknowledged READ whose data stops coming for the
 * transport timeout completes REMOTE_UNRESPONSIVE.
 */
class SrdReadLivenessTest {
    static final long MS = 1_000_000;
    static final int SIZE = 1 << 20;

    /** A requester {@code a}, a responder {@code b} with a registered region, and a READ of all of it on its way. */
    private static final class Read implements AutoCloseable {
        final SimFabric f = new SimFabric(8);
        final TransportDevice a = f.addHost(new TransportConfig().paths(8));
        final TransportDevice b = f.addHost(new TransportConfig().paths(8));
        final TestQp qa = f.qp(a, 1, 64);
        final TestQp qb = f.qp(b, 1, 64);
        final MemorySegment local = f.arena.allocate(SIZE, 64);
        final MemorySegment remote = f.arena.allocate(SIZE, 64);
        final int rkey = b.regions().register(remote, 0, MemoryRegions.REMOTE_READ);

        /** Posts the READ and runs until the responder has answered part of it (the request is acknowledged by then). */
        void startRead() {
            int ah = f.ah(a, 1);
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), request(1, SendOpcode.RDMA_READ, local, 0, SIZE)
                .remote(remote.address(), rkey).to(ah, qb.qpn(), SimFabric.QKEY)));
            assertTrue(f.runUntil(() -> a.counters().readResponsesPlaced > 0, 100 * MS), "the answer began");
            int perPacket = a.mtu() - RdmaHeader.LENGTH;
            assertTrue(a.counters().readResponsesPlaced < (SIZE + perPacket - 1) / perPacket, "and is not over yet");
        }

        /** The READ's completion, within a second of virtual time; its status must be an error. */
        void assertFailsInTime() {
            assertTrue(f.runUntil(() -> qa.sendCq().size() > 0, 1_000 * MS), "the READ completed");
            List<TestQp.Wc> wcs = qa.sends();
            assertEquals(1, wcs.size());
            assertNotEquals(WcStatus.SUCCESS, wcs.get(0).status(), "its data never all came");
        }

        @Override
        public void close() {
            f.close();
        }
    }

    /**
     * The responder's request slots keep the address handle of their last send: answering a READ
     * in such a slot, it flushes the answer when it destroys that (unrelated) address handle.
     */
    @Test
    void shouldNotAbandonAnAnswerWhenTheResponderDestroysAnAddressHandleOfItsOwn() {
        try (Read r = new Read()) {
            int ahB = r.f.ah(r.b, 0);
            assertEquals(TransportDevice.POST_OK, r.b.post(r.qb.qp(), send(9, r.remote, 0, 8).to(ahB, r.qa.qpn(), SimFabric.QKEY)));
            assertTrue(r.f.runUntil(() -> r.qb.sendCq().size() > 0, 100 * MS), "b's own send completed, its request slot free again");
            assertEquals(WcStatus.SUCCESS, r.qb.sends().get(0).status());
            r.qa.receives();
            r.startRead();
            r.b.destroyAddressHandle(ahB);
            assertTrue(r.f.runUntil(() -> r.qa.sendCq().size() > 0, 1_000 * MS), "the READ completed");
            assertEquals(WcStatus.SUCCESS, r.qa.sends().get(0).status(), "an address handle of the responder's has nothing to do with it");
        }
    }

    @Test
    void shouldCompleteAReadWhoseResponderQpIsDestroyedMidAnswer() {
        try (Read r = new Read()) {
            r.startRead();
            r.qb.qp().destroy();
            long start = r.f.network.clock().now();
            r.assertFailsInTime();
            long took = r.f.network.clock().now() - start;
            assertTrue(took >= r.a.config().retransmitLifetimeNanos(), "not before the responder itself would give its answer up: " + took);
            assertTrue(took <= r.a.config().retransmitLifetimeNanos() + 2 * MS, "but then: " + took);
            assertEquals(1, r.a.counters().readsTimedOut);
            assertEquals(0, r.a.requestsInUse());
        }
    }

    @Test
    void shouldCompleteAReadWhoseResponderRestartsMidAnswer() {
        try (Read r = new Read()) {
            r.startRead();
            r.f.restart(1, new TransportConfig().paths(8), 0x7777);
            r.assertFailsInTime();
            assertEquals(0, r.a.requestsInUse());
        }
    }

    /**
     * The requester's thread stalls (descheduled, a GC pause) for longer than the transport
     * timeout while the responder goes on answering: when it runs again the answers are in its RX
     * ring, unread. Silence is measured up to the last time the ring was emptied, not up to now.
     */
    @Test
    void shouldNotTimeOutAReadWhoseRequesterThreadStalledWhileTheDataCame() {
        try (Read r = new Read()) {
            r.startRead();
            assertTrue(r.f.runUntil(() -> r.a.counters().readResponsesPlaced >= 32, 100 * MS), "the READ's own ACK is in by now");
            r.f.runOnly(r.b, 2 * r.a.config().transportTimeoutNanos());
            assertTrue(r.f.runUntil(() -> r.qa.sendCq().size() > 0, 1_000 * MS));
            assertEquals(WcStatus.SUCCESS, r.qa.sends().get(0).status(), "its data had all come; it was only not read yet");
            assertEquals(0, r.a.counters().readsTimedOut);
            assertEquals(-1, r.local.mismatch(r.remote));
        }
    }

    @Test
    void shouldNotTimeOutAReadWhoseDataKeepsComing() {
        try (Read r = new Read()) {
            r.startRead();
            assertTrue(r.f.runUntil(() -> r.qa.sendCq().size() > 0, 1_000 * MS));
            assertEquals(WcStatus.SUCCESS, r.qa.sends().get(0).status());
            assertEquals(0, r.a.counters().readsTimedOut);
        }
    }
}
