package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/**
 * Reclaiming an idle context forgets its receive window, which is what makes delivery at most once:
 * a reclaim must never meet a retransmission of something that window delivered. And it must cost
 * nothing: a peer whose own context outlived ours keeps reaching us.
 */
class ContextReclaimTest {
    static final long MS = 1_000_000;
    /** Retransmissions live at most 4 × 2 ms; contexts are reclaimed after 200 ms idle, well past that plus a packet's lifetime. */
    static final TransportConfig CONFIG = new TransportConfig().retryBudget(4).rtoMaxNanos(2 * MS).idleContextNanos(200 * MS);

    /** A sending to B's QP, both with {@code config}; each QP has 4 receives of 8 bytes. */
    private record Pair(SimFabric f, TransportDevice a, TransportDevice b, TestQp qa, TestQp qb, int ah, MemorySegment msg) {
        static Pair of(SimFabric f, TransportConfig config) {
            TransportDevice a = f.addHost(config);
            TransportDevice b = f.addHost(config);
            return new Pair(f, a, b, f.qp(a, 4, 8), f.qp(b, 4, 8), f.ah(a, 1), f.arena.allocate(8));
        }

        void send(long wrId) {
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), Requests.send(wrId, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY)));
        }

        /** B's next ACK (owed for what it just delivered) is lost. */
        void loseTheAck() {
            f.network.blackhole(0, true);
            f.runOnly(b, MS);
            f.network.blackhole(0, false);
        }
    }

    @Test
    void shouldNotDeliverAgainWhatARequesterRetransmitsAfterTheResponderReclaimedItsContext() {
        try (SimFabric f = new SimFabric(1)) {
            Pair p = Pair.of(f, CONFIG);
            p.send(1);
            p.a().doWork(f.network.clock().now()); // A sends once, then its application stops polling for a while
            assertTrue(f.runOnlyUntil(p.b(), () -> p.qb().recvCq().size() == 1, MS), "B delivers");
            p.loseTheAck();
            f.runOnly(p.b(), 300 * MS);
            assertEquals(0, p.b().contextCount(), "B reclaimed its idle context, window and all");
            assertTrue(f.runUntil(() -> p.qa().sendCq().size() == 1, 100 * MS)); // A polls again; its RTO is long past
            f.runFor(10 * MS);
            assertEquals(1, p.qb().receives().size(), "delivered exactly once");
            assertEquals(WcStatus.REMOTE_UNRESPONSIVE, p.qa().sends().get(0).status(),
                "too old to retransmit: the requester cannot know it arrived, so it reports no success");
        }
    }

    @Test
    void shouldNotReclaimAContextBeforeReadingTheRetransmissionsWaitingInTheRxRing() {
        try (SimFabric f = new SimFabric(1)) {
            Pair p = Pair.of(f, CONFIG);
            p.send(1);
            assertTrue(f.runUntil(() -> p.qb().recvCq().size() == 1, MS), "B delivers");
            p.loseTheAck();
            f.runOnly(p.a(), 300 * MS); // B stalls; A's retransmissions wait in B's RX ring while B's context looks idle
            assertEquals(1, p.qa().sendCq().size(), "A gave up");
            f.runFor(10 * MS);
            assertEquals(1, p.qb().receives().size(), "delivered exactly once");
        }
    }

    @Test
    void shouldKeepReachingAPeerThatReclaimedItsContextWhileOursLived() {
        try (SimFabric f = new SimFabric(2)) {
            Pair p = reclaimedOnOneSide(f);
            p.send(3);
            assertAllSucceed(f, p, 3);
        }
    }

    @Test
    void shouldAddressTheContextAPeerReopenedWhenItSpokeFirst() {
        try (SimFabric f = new SimFabric(2)) {
            Pair p = reclaimedOnOneSide(f);
            TestQp qb = p.qb();
            assertEquals(TransportDevice.POST_OK, p.b().post(qb.qp(), send(9, p.msg(), 0, 8)
                .to(f.ah(p.b(), 0), p.qa().qpn(), SimFabric.QKEY)));
            assertTrue(f.runUntil(() -> qb.sendCq().size() == 1, 100 * MS), "B, with a new context, reaches A");
            p.send(3); // A has just heard from B: it names B's context, the new one
            assertAllSucceed(f, p, 3);
        }
    }

    /** A and B on two paths, one dead: two sends, then B's context is reclaimed while A's (probing the dead path) lives on. */
    private static Pair reclaimedOnOneSide(SimFabric f) {
        Pair p = Pair.of(f, CONFIG.copy().paths(2));
        f.network.blackhole(1, true);
        p.send(1);
        p.send(2);
        assertTrue(f.runUntil(() -> p.qa().sendCq().size() == 2, 100 * MS));
        f.runFor(300 * MS);
        assertEquals(0, p.b().contextCount(), "B reclaimed its context");
        assertEquals(1, p.a().contextCount(), "A kept its own, with B's old context id");
        return p;
    }

    private static void assertAllSucceed(SimFabric f, Pair p, int sends) {
        assertTrue(f.runUntil(() -> p.qa().sendCq().size() == sends, 1000 * MS));
        assertEquals(Collections.nCopies(sends, "SUCCESS"), p.qa().sends().stream().map(wc -> WcStatus.name(wc.status())).toList(),
            "a reclaim on one side costs the other nothing");
        assertEquals(sends, p.qb().receives().size());
    }

    @Test
    void shouldRefuseAnIdleTimeShorterThanARetransmissionCanLive() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new TransportConfig().idleContextNanos(5 * MS).conclude(9000),
            "32 transmissions up to 20 ms apart outlive a context reclaimed after 5 ms idle");
        assertTrue(e.getMessage().contains("idle"), e.getMessage());
        CONFIG.copy().conclude(9000);
    }
}
