package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.srd.FlowKey;
import io.srdnic.srd.transport.srd.SrdContext;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Contexts: implicit creation and sharing, reclaim, restarts, unresponsive peers, cancellation. */
class SrdContextLifecycleTest {
    static final long MS = 1_000_000;

    @Test
    void shouldNeedContextsPerRemoteDeviceNotPerQpPair() {
        int hosts = 4;
        int qpsPerHost = 5;
        try (SimFabric f = new SimFabric(4)) {
            List<TransportDevice> ts = new ArrayList<>();
            List<List<TestQp>> qps = new ArrayList<>();
            for (int h = 0; h < hosts; h++) {
                TransportDevice t = f.addHost(new TransportConfig());
                ts.add(t);
                List<TestQp> mine = new ArrayList<>();
                for (int q = 0; q < qpsPerHost; q++) {
                    mine.add(f.qp(t, hosts * qpsPerHost, 8));
                }
                qps.add(mine);
            }
            MemorySegment msg = f.arena.allocate(8);
            int posted = 0;
            for (int h = 0; h < hosts; h++) {
                for (int peer = 0; peer < hosts; peer++) {
                    if (peer == h) {
                        continue;
                    }
                    int ah = f.ah(ts.get(h), peer);
                    for (TestQp from : qps.get(h)) {
                        for (TestQp to : qps.get(peer)) {
                            assertEquals(TransportDevice.POST_OK, ts.get(h)
                                    .post(from.qp(), send(posted++, msg, 0, 8).to(ah, to.qpn(), SimFabric.QKEY)));
                        }
                    }
                }
            }
            int expected = posted;
            assertTrue(f.runUntil(() -> qps.stream().flatMap(List::stream).mapToInt(q -> q.sendCq().size()).sum() == expected, 50 * MS));
            for (List<TestQp> mine : qps) {
                for (TestQp q : mine) {
                    assertTrue(q.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
                }
            }
            for (TransportDevice t : ts) {
                assertEquals(hosts - 1, t.counters().contextsCreated,
                    "full connectivity of " + hosts + " x " + qpsPerHost + " QPs needs one context per remote device, not per QP pair");
            }
        }
    }

    @Test
    void shouldReclaimIdleContexts() {
        try (SimFabric f = new SimFabric(1)) {
            // Reclaimed after 20 ms idle: past 4 transmissions up to 2 ms apart and 1 ms in the simulated network.
            TransportConfig config = new TransportConfig().idleContextNanos(20 * MS).retryBudget(4).rtoMaxNanos(2 * MS)
                    .maxPacketLifetimeNanos(MS);
            TransportDevice a = f.addHost(config);
            TransportDevice b = f.addHost(config);
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 4, 8);
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            a.post(qa.qp(), send(1, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, MS));
            assertEquals(1, a.contextCount());
            f.runFor(40 * MS);
            assertEquals(0, a.contextCount());
            assertEquals(0, b.contextCount());
            // The address handle still works: the context comes back on next use.
            a.post(qa.qp(), send(2, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 2, MS));
            assertTrue(qa.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
            assertEquals(2, qb.receives().size());
        }
    }

    /** Contexts reclaimed out of creation order leave exactly the others alive, each still found by its address. */
    @Test
    void shouldKeepTheLiveSetExactWhenContextsAreReclaimedOutOfOrder() {
        try (SimFabric f = new SimFabric(1)) {
            TransportConfig config = new TransportConfig().idleContextNanos(20 * MS).retryBudget(4).rtoMaxNanos(2 * MS)
                    .maxPacketLifetimeNanos(MS);
            TransportDevice b = f.addHost(config);
            TestQp qb = f.qp(b, 64, 8);
            List<TransportDevice> peers = new ArrayList<>();
            List<TestQp> qps = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                TransportDevice p = f.addHost(config);
                peers.add(p);
                qps.add(f.qp(p, 0, 0));
            }
            MemorySegment msg = f.arena.allocate(8);
            IntConsumer send = i -> peers.get(i).post(qps.get(i).qp(), send(i, msg, 0, 8)
                .to(f.ah(peers.get(i), 0), qb.qpn(), SimFabric.QKEY));
            for (int i = 0; i < 5; i++) {
                send.accept(i);
            }
            f.runFor(MS);
            assertEquals(5, b.liveContexts().size());
            // Peers 2 and 4 (indices 1, 3) keep sending; the others go idle and are reclaimed.
            for (int t = 0; t < 30; t++) {
                send.accept(1);
                send.accept(3);
                f.runFor(MS);
                qb.receives();
            }
            Set<Integer> live = b.liveContexts().stream().map(c -> c.remoteIp).collect(Collectors.toSet());
            assertEquals(Set.of(SimFabric.ip(2), SimFabric.ip(4)), live);
            for (int ip : live) {
                assertEquals(ip, b.existingContext(FlowKey.pack(ip, b.config().udpPort())).remoteIp);
            }
            send.accept(0);
            send.accept(2);
            f.runFor(MS);
            live = b.liveContexts().stream().map(c -> c.remoteIp).collect(Collectors.toSet());
            assertEquals(Set.of(SimFabric.ip(1), SimFabric.ip(2), SimFabric.ip(3), SimFabric.ip(4)), live);
        }
    }

    /**
     * A requester that saw a window of its PSNs go unacknowledged (failed, the peer unreachable)
     * re-incarnates its context under a new id. Afterwards both directions must work: the peer takes
     * up the new incarnation's data and readdresses its own packets to the new id (its old one is
     * gone, and packets naming it are dropped).
     */
    @Test
    void shouldKeepBothDirectionsWorkingAfterAPeerReincarnatesItsContext() {
        try (SimFabric f = new SimFabric(1)) {
            TransportConfig config = new TransportConfig().window(64).retryBudget(2).rtoMinNanos(100_000).rtoInitialNanos(200_000)
                    .rtoMaxNanos(MS)
                .maxPacketLifetimeNanos(MS);
            TransportDevice a = f.addHost(config);
            TransportDevice b = f.addHost(config);
            TestQp qa = f.qp(a, 64, 8);
            TestQp qb = f.qp(b, 64, 8);
            MemorySegment msg = f.arena.allocate(8);
            int toB = f.ah(a, 1);
            int toA = f.ah(b, 0);
            IntBinaryOperator aSends = (n, wr) -> {
                for (int i = 0; i < n; i++) {
                    a.post(qa.qp(), send(wr + i, msg, 0, 8).to(toB, qb.qpn(), SimFabric.QKEY));
                }
                assertTrue(f.runUntil(() -> qa.sendCq().size() >= n, 500 * MS));
                return (int) qa.sends().stream().filter(wc -> wc.status() == WcStatus.SUCCESS).count();
            };
            IntUnaryOperator bSends = n -> {
                for (int i = 0; i < n; i++) {
                    b.post(qb.qp(), send(i, msg, 0, 8).to(toA, qa.qpn(), SimFabric.QKEY));
                }
                assertTrue(f.runUntil(() -> qb.sendCq().size() >= n, 500 * MS));
                return (int) qb.sends().stream().filter(wc -> wc.status() == WcStatus.SUCCESS).count();
            };
            assertEquals(1, aSends.applyAsInt(1, 0));
            assertEquals(1, bSends.applyAsInt(1));
            f.network.blackhole(0, true);
            assertEquals(0, aSends.applyAsInt(64, 100), "every send fails while B is unreachable");
            f.network.blackhole(0, false);
            assertEquals(2, aSends.applyAsInt(2, 200));
            assertEquals(1, a.counters().contextReincarnations, "A started a later incarnation of its context");
            assertEquals(2, bSends.applyAsInt(2), "B's sends reach A's new incarnation");
        }
    }

    @Test
    void shouldResetCleanlyWhenThePeerRestartsWithANewEpoch() {
        try (SimFabric f = new SimFabric(2)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 64, 8);
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            for (int i = 0; i < 20; i++) {
                a.post(qa.qp(), send(i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 20, 5 * MS));
            qa.sends();
            // A restarts: a new incarnation with a new epoch and fresh PSNs talks to the same B.
            TransportDevice a2 = f.restart(0, new TransportConfig(), 0x7777);
            TestQp qa2 = f.qp(a2, 0, 0);
            int ah2 = f.ah(a2, 1);
            for (int i = 0; i < 20; i++) {
                a2.post(qa2.qp(), send(100 + i, msg, 0, 8).to(ah2, qb.qpn(), SimFabric.QKEY));
            }
            assertTrue(f.runUntil(() -> qa2.sendCq().size() == 20, 5 * MS));
            assertTrue(qa2.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS),
                "the restarted peer's PSNs are neither duplicates nor out of window");
            assertEquals(40, qb.receives().size());
            assertEquals(1, b.counters().peerResets);
        }
    }

    /**
     * Host 0 sends five messages to host 1 while every path is a black hole: all complete
     * REMOTE_UNRESPONSIVE, the paths come back, and {@code then} sees host 0, its QP and its address handle of host 1.
     */
    private static void afterAnUnresponsiveEpisode(UnresponsiveCheck then) {
        TransportConfig config = new TransportConfig().paths(4).transportTimeoutNanos(5 * MS).retryBudget(6).rtoMaxNanos(2 * MS);
        try (SimFabric f = new SimFabric(4)) {
            TransportDevice a = f.addHost(config);
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 64, 8);
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            for (int p = 0; p < 4; p++) {
                f.network.blackhole(p, true);
            }
            for (int i = 0; i < 5; i++) {
                a.post(qa.qp(), send(i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 5, 200 * MS));
            assertTrue(qa.sends().stream().allMatch(wc -> wc.status() == WcStatus.REMOTE_UNRESPONSIVE));
            for (int p = 0; p < 4; p++) {
                f.network.blackhole(p, false);
            }
            then.check(f, a, qa, ah, () -> a.post(qa.qp(), send(9, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY)));
        }
    }

    private interface UnresponsiveCheck {
        /** {@code sendAgain} posts one more message from {@code qa} to the peer. */
        void check(SimFabric f, TransportDevice a, TestQp qa, int ah, Runnable sendAgain);
    }

    @Test
    void shouldRaiseRemoteUnresponsiveOncePerEpisode() {
        afterAnUnresponsiveEpisode((f, a, qa, ah, sendAgain) -> {
            AsyncEventQueue.AsyncEvent event = a.events().poll();
            assertEquals(AsyncEventQueue.REMOTE_UNRESPONSIVE, event.type());
            assertEquals(ah, event.addressHandle());
            assertNull(a.events().poll(), "once per episode");
        });
    }

    @Test
    void shouldSucceedOnTheSameContextOnceAnUnresponsivePeerAnswersAgain() {
        afterAnUnresponsiveEpisode((f, a, qa, ah, sendAgain) -> {
            SrdContext unresponsive = a.existingContext(SimFabric.flow(1));
            sendAgain.run();
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 200 * MS));
            assertEquals(WcStatus.SUCCESS, qa.sends().get(0).status());
            assertSame(unresponsive, a.existingContext(SimFabric.flow(1)), "the same context carried it");
        });
    }

    @Test
    void shouldFlushOutstandingRequestsWhenTheirAddressHandleIsDestroyed() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 64, 8);
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            int other = f.ah(a, 1);
            f.network.blackhole(0, true);
            for (int i = 0; i < 3; i++) {
                a.post(qa.qp(), send(i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            }
            a.post(qa.qp(), send(10, msg, 0, 8).to(other, qb.qpn(), SimFabric.QKEY));
            f.runFor(100_000);
            a.destroyAddressHandle(ah);
            List<TestQp.Wc> flushed = qa.sends();
            assertEquals(3, flushed.size());
            assertTrue(flushed.stream().allMatch(wc -> wc.status() == WcStatus.WR_FLUSH_ERROR));
            assertEquals(TransportDevice.POST_BAD_ADDRESS_HANDLE, a.post(qa.qp(), send(5, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY)));
            f.network.blackhole(0, false);
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 200 * MS));
            assertEquals(10, qa.sends().get(0).wrId(), "the other handle's request is untouched");
        }
    }

    @Test
    void shouldAbortADestroyedQpsSendsWithoutAffectingAnotherQpOnTheSameContext() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig().ccInitialWindow(1));
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp doomed = f.qp(a, 0, 0);
            TestQp survivor = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 256, 8);
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            for (int i = 0; i < 50; i++) {
                a.post(doomed.qp(), send(i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
                a.post(survivor.qp(), send(1000 + i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            }
            a.doWork(0);
            long leftBeforeDestroy = a.counters().txData;
            doomed.qp().destroy();
            assertTrue(f.runUntil(() -> survivor.sendCq().size() == 50, 100 * MS));
            assertTrue(survivor.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
            f.runFor(MS);
            assertEquals(List.of(), doomed.sends(), "aborted sends complete silently");
            List<TestQp.Wc> received = qb.receives();
            assertEquals(50, received.stream().filter(wc -> wc.srcQpn() == survivor.qpn()).count());
            assertTrue(received.stream().filter(wc -> wc.srcQpn() == doomed.qpn()).count() <= leftBeforeDestroy,
                "of the destroyed QP's sends only those already on the wire (" + leftBeforeDestroy + ") may arrive");
            assertEquals(0, a.requestsInUse());
        }
    }

    @Test
    void shouldNotCallAPeerUnresponsiveAfterAnIdlePeriod() {
        try (SimFabric f = new SimFabric(2)) {
            TransportDevice a = f.addHost(new TransportConfig().transportTimeoutNanos(5 * MS).idleContextNanos(1000 * MS));
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 8, 8);
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            a.post(qa.qp(), send(1, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, MS));
            f.runFor(20 * MS); // idle far longer than the transport timeout
            a.post(qa.qp(), send(2, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 2, MS));
            assertNull(a.events().poll(), "a responsive peer after a quiet spell is not unresponsive");
        }
    }
}
