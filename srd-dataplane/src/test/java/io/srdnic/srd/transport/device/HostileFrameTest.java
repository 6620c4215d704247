package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.srd.SrdContext;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Forged and stale frames from a host on the same L2 segment, sent through the simulated fabric:
 * none may deliver a message twice, complete a send SUCCESS that was not delivered, or move another
 * peer's context.
 */
class HostileFrameTest {
    static final long MS = 1_000_000;

    private final SimFabric f = new SimFabric(1);
    private final TransportDevice a = f.addHost(new TransportConfig());
    private final TransportDevice b = f.addHost(new TransportConfig());
    private final TestQp qa = f.qp(a, 0, 0);
    private final TestQp qb = f.qp(b, 64, 8);

    @AfterEach
    void closeFabric() {
        f.close();
    }

    /** A (host 0, or its restarted incarnation) sends {@code n} messages to B's QP and waits for them; returns how many B received. */
    private int exchange(TransportDevice a, TestQp qa, int n, int firstWr) {
        MemorySegment msg = f.arena.allocate(8);
        int ah = f.ah(a, 1);
        for (int i = 0; i < n; i++) {
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(firstWr + i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY)));
        }
        assertTrue(f.runUntil(() -> qa.sendCq().size() >= n, 20 * MS), "the sends complete");
        List<TestQp.Wc> sends = qa.sends();
        assertTrue(sends.stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS), "legit sends: " + sends);
        return qb.receives().size();
    }

    @Test
    void shouldNotLetAStaleIncarnationResetTheWindowOfTheCurrentOne() {
        assertEquals(4, exchange(a, qa, 4, 0));
        SrdContext old = a.existingContext(SimFabric.flow(1));
        int oldEpoch = a.epoch(), oldContext = old.id, oldPsn = old.sender.nextPsn - 1, bContext = old.remoteContextId;
        // A restarts (a newer incarnation) and sends again.
        TransportDevice a2 = f.restart(0, new TransportConfig(), a.epoch() + 1000);
        assertEquals(4, exchange(a2, f.qp(a2, 0, 0), 4, 10));
        SrdContext now = a2.existingContext(SimFabric.flow(1));
        int newPsn = now.sender.nextPsn - 1;
        Attacker x = new Attacker(f);
        // A late packet of the old incarnation, then a late duplicate of a delivered one of the new.
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), oldContext, bContext, oldEpoch, oldPsn, oldPsn, qb.qpn(), SimFabric.QKEY, 8);
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), now.id, now.remoteContextId, a2.epoch(), newPsn, newPsn, qb.qpn(),
            SimFabric.QKEY, 8);
        x.settle();
        assertEquals(0, qb.receives().size(), "neither the stale packet nor the duplicate may be delivered");
    }

    @Test
    void shouldNotResetTheWindowForAPacketAddressedToAnotherContextOfOurs() {
        assertEquals(4, exchange(a, qa, 4, 0));
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        int delivered = ctx.sender.nextPsn - 1;
        Attacker x = new Attacker(f);
        // A newer-looking incarnation, but addressed to a context id B never gave out.
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), ctx.id + 1, ctx.remoteContextId ^ 0x5A5A_0000, a.epoch() + 1, 5, 5,
            qb.qpn(), SimFabric.QKEY, 8);
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), ctx.id, ctx.remoteContextId, a.epoch(), delivered, delivered, qb.qpn(),
            SimFabric.QKEY, 8);
        x.settle();
        assertEquals(0, qb.receives().size());
        assertEquals(0, b.counters().peerResets, "a packet for another context of ours resets nothing");
    }

    @Test
    void shouldRefuseASendBaseBeyondTheWindowSoLaterSendsAreNotAcknowledgedUndelivered() {
        assertEquals(2, exchange(a, qa, 2, 0));
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        Attacker x = new Attacker(f);
        int far = ctx.sender.nextPsn + 100_000;
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), ctx.id, ctx.remoteContextId, a.epoch(), far, far, 0x7FFF, SimFabric.QKEY, 0);
        x.settle();
        // Every later SUCCESS must be a delivery.
        assertEquals(8, exchange(a, qa, 8, 10), "SUCCESS without delivery after a forged far send base");
        assertTrue(b.counters().sendBaseRefused > 0);
    }

    @Test
    void shouldRefuseAnAckForPsnsNeverSent() {
        assertEquals(1, exchange(a, qa, 1, 0));
        f.network.blackhole(0, true);
        MemorySegment msg = f.arena.allocate(8);
        int ah = f.ah(a, 1);
        for (int i = 0; i < 4; i++) {
            a.post(qa.qp(), send(100 + i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
        }
        f.runFor(20_000);
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        SrdContext bSide = b.existingContext(SimFabric.flow(0));
        f.network.blackhole(0, false);
        Attacker x = new Attacker(f);
        x.ack(0, SimFabric.ip(1), bSide.id, ctx.id, b.epoch(), ctx.sender.nextPsn + 1000, a.epoch(), 0);
        x.ack(0, SimFabric.ip(1), bSide.id, ctx.id, b.epoch(), ctx.sender.sendBase, a.epoch(), 0, ctx.sender.nextPsn + 3, 1);
        f.runFor(20_000);
        assertEquals(0, qa.sendCq().size(), "nothing completes on an ACK that names PSNs never sent");
        assertEquals(2, a.counters().acksRefused, a.counters().snapshot().toString());
        assertTrue(f.runUntil(() -> qa.sendCq().size() == 4, 50 * MS));
        assertEquals(4, qb.receives().size());
    }

    /**
     * An ACK that names our context and echoes our epoch (both on the wire) but acknowledges nothing
     * new proves nothing about who sent it: it may not readdress our data to another peer context
     * (the peer would refuse all of it as meant for another incarnation, and never acknowledge
     * anything that would readdress it back).
     */
    @Test
    void shouldNotLetAnAckThatAcknowledgesNothingNewReaddressOurData() {
        assertEquals(2, exchange(a, qa, 2, 0));
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        int addressed = ctx.remoteContextId;
        Attacker x = new Attacker(f);
        x.ack(0, SimFabric.ip(1), addressed ^ 0x0BAD_0000, ctx.id, b.epoch() ^ 0x55, ctx.sender.sendBase - 1, a.epoch(), 0);
        x.settle();
        assertEquals(addressed, ctx.remoteContextId, "a stale ACK readdressed our data");
        assertEquals(4, exchange(a, qa, 4, 10), "our data still reaches the peer");
    }

    @Test
    void shouldDropFramesFromUnusableSourceAddressesWithoutTouchingAnyContext() {
        assertEquals(2, exchange(a, qa, 2, 0));
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        int delivered = ctx.sender.nextPsn - 1;
        Attacker x = new Attacker(f);
        for (int ip : new int[] {0, 0xFFFF_FFFF, 0xE000_0001, SimFabric.ip(1), 0x7F00_0001}) {
            x.data(1, ip, Attacker.MAC, 77, 0, 0x4242, 1, 1, qb.qpn(), SimFabric.QKEY, 8);
        }
        // A's real incarnation, replaying what was delivered: still a duplicate.
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), ctx.id, ctx.remoteContextId, a.epoch(), delivered, delivered, qb.qpn(),
            SimFabric.QKEY, 8);
        x.settle();
        assertEquals(0, qb.receives().size(), "no frame from 0.0.0.0, broadcast, multicast, ourselves or loopback is delivered");
        assertEquals(5, b.counters().badSource);
        assertEquals(SimFabric.mac(0), b.existingContext(SimFabric.flow(0)).remoteMac, "A's context keeps A's MAC");
        assertEquals(0, b.counters().peerResets);
    }

    @Test
    void shouldNotLetASpoofedMacRedirectAnExistingContext() {
        assertEquals(1, exchange(a, qa, 1, 0));
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        new Attacker(f).data(1, SimFabric.ip(0), Attacker.MAC, ctx.id, ctx.remoteContextId, a.epoch(), ctx.sender.nextPsn,
                ctx.sender.sendBase,
            qb.qpn(), SimFabric.QKEY, 8);
        f.runFor(200_000);
        assertEquals(SimFabric.mac(0), b.existingContext(SimFabric.flow(0)).remoteMac,
            "B's requests to A keep going to the MAC A's address handle or first packet gave");
    }

    /**
     * A peer that reopened its context for us names none of ours (0), and only then do our packets
     * follow its new context id. A packet that names our context and claims another context id of
     * the peer (forged, knowing the live ids) must not readdress our sends, or the real peer drops
     * them as addressed to a context it does not have.
     */
    @Test
    void shouldNotReaddressOurSendsForAPacketThatNamesOurContext() {
        assertEquals(1, exchange(a, qa, 1, 0));
        TestQp aReceives = f.qp(a, 64, 8);
        TestQp bSends = f.qp(b, 0, 0);
        MemorySegment msg = f.arena.allocate(8);
        int toA = f.ah(b, 0);
        IntPredicate bSendsAndWaits = n -> {
            for (int i = 0; i < n; i++) {
                b.post(bSends.qp(), send(i, msg, 0, 8).to(toA, aReceives.qpn(), SimFabric.QKEY));
            }
            return f.runUntil(() -> bSends.sendCq().size() >= n, 50 * MS);
        };
        assertTrue(bSendsAndWaits.test(2));
        assertTrue(bSends.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
        SrdContext aToB = a.existingContext(SimFabric.flow(1));
        SrdContext bToA = b.existingContext(SimFabric.flow(0));
        int realAContext = bToA.remoteContextId;
        new Attacker(f).data(1, SimFabric.ip(0), SimFabric.mac(0), aToB.id + 7, bToA.id, a.epoch(), 1, 1, 0x7FFF, SimFabric.QKEY, 8);
        f.runFor(200_000);
        assertEquals(realAContext, b.existingContext(SimFabric.flow(0)).remoteContextId, "B still names A's real context");
        assertTrue(bSendsAndWaits.test(2));
        assertTrue(bSends.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS), "B's later sends reach A");
    }

    /**
     * "Later" is compared modulo 2^32, which is not transitive: E + 2^30 is later than E, E + 2^31 + 1
     * later than that, and E later again. Two forged packets must not walk the responder round that
     * circle back to the real incarnation with a fresh window, where a retransmission of a delivered
     * PSN would be delivered again.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldNeverReturnToAnIncarnationItLeft(boolean byEpoch) {
        assertEquals(4, exchange(a, qa, 4, 0));
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        int delivered = ctx.sender.nextPsn - 1;
        int epoch = a.epoch();
        Attacker x = new Attacker(f);
        for (int step : new int[] {1 << 30, (1 << 31) + 1}) {
            // Addressed to no QP: nothing to deliver, only the incarnation to move.
            x.data(1, SimFabric.ip(0), SimFabric.mac(0), byEpoch ? ctx.id : ctx.id + step, ctx.remoteContextId,
                byEpoch ? epoch + step : epoch, 1, 1, 0x7FFF, SimFabric.QKEY, 8);
        }
        // The real incarnation retransmits its last delivered PSN (its ACK was lost).
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), ctx.id, ctx.remoteContextId, epoch, delivered, delivered, qb.qpn(),
            SimFabric.QKEY, 8);
        x.settle();
        assertEquals(0, qb.receives().size(), "a delivered message came again after the incarnation went round the circle");
    }

    /**
     * Anyone on the segment can send from the peer's address under an incarnation of their own
     * making, later than the real one (a later epoch, or the real epoch with a later context id).
     * Without the destination QP's Q_Key such a packet proves nothing: if the responder followed it,
     * the real peer's packets would be refused as an incarnation left behind, for good.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldNotFollowALaterIncarnationThatLacksTheQkey(boolean byEpoch) {
        assertEquals(4, exchange(a, qa, 4, 0));
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        Attacker x = new Attacker(f);
        int next = ctx.sender.nextPsn;
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), byEpoch ? ctx.id : ctx.id + 1000, ctx.remoteContextId,
            byEpoch ? a.epoch() + 1000 : a.epoch(), next, next, qb.qpn(), SimFabric.QKEY ^ 0x5A5A, 8);
        x.settle();
        assertEquals(0, b.counters().peerResets, "a packet without the Q_Key moved the peer's incarnation");
        assertEquals(4, exchange(a, qa, 4, 10), "the real peer goes on being heard");
    }

    /**
     * A peer that re-creates its context (same epoch, new id) and whose first packet under it proves
     * nothing (a QP we do not have) hears its drop; the answer may not make it name our context,
     * or it would never name none (0), which is how we learn its new id: our data would go on
     * naming its old context, which it refuses, and our sends would end REMOTE_UNRESPONSIVE.
     */
    @Test
    void shouldStillReachAPeerThatReCreatedItsContextWithAnUnprovenFirstPacket() {
        TestQp pa = f.qp(a, 64, 8);
        assertEquals(2, exchange(a, qa, 2, 0));
        int fromB = sendAll(b, f.qp(b, 0, 0), pa, 2, 100);
        assertEquals(2, fromB);
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        ctx.reincarnate(ctx.id + 12_345);
        MemorySegment msg = f.arena.allocate(8);
        assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(50, msg, 0, 8).to(f.ah(a, 1), qb.qpn() + 777, SimFabric.QKEY)));
        assertTrue(f.runUntil(() -> qa.sendCq().size() >= 1, 20 * MS));
        assertEquals(WcStatus.BAD_DEST_QP_ERROR, qa.sends().get(0).status(), "the unproven packet hears its drop");
        assertEquals(2, exchange(a, qa, 2, 10), "A's proven packets are followed");
        assertEquals(2, sendAll(b, f.qp(b, 0, 0), pa, 2, 200), "B's data reaches A's new context");
    }

    /** {@code from} sends {@code n} messages from {@code fromQp} to {@code to}, all SUCCESS; returns how many {@code to} received. */
    private int sendAll(TransportDevice from, TestQp fromQp, TestQp to, int n, int firstWr) {
        MemorySegment msg = f.arena.allocate(8);
        int ah = f.ah(from, from == a ? 1 : 0);
        for (int i = 0; i < n; i++) {
            assertEquals(TransportDevice.POST_OK, from.post(fromQp.qp(), send(firstWr + i, msg, 0, 8).to(ah, to.qpn(), SimFabric.QKEY)));
        }
        assertTrue(f.runUntil(() -> fromQp.sendCq().size() >= n, 20 * MS), "the sends complete");
        List<TestQp.Wc> sends = fromQp.sends();
        assertTrue(sends.stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS), "sends: " + sends);
        return to.receives().size();
    }

    /** The same spoof as a first contact: it must not take the context before the real peer speaks. */
    @Test
    void shouldNotLetAFirstContactWithoutTheQkeyClaimThePeersAddress() {
        Attacker x = new Attacker(f);
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), 77, 0, a.epoch() + (1 << 30), 5, 5, qb.qpn(), SimFabric.QKEY ^ 0x5A5A, 8);
        x.settle();
        assertEquals(4, exchange(a, qa, 4, 0), "the real peer is heard after a spoofed first contact");
    }

    @Test
    void shouldNotAcknowledgeAReplacedIncarnationWithTheWindowOfItsSuccessor() {
        assertEquals(1, exchange(a, qa, 1, 0));
        SrdContext ctx = a.existingContext(SimFabric.flow(1));
        int next = ctx.sender.nextPsn;
        // Into one receive burst at B, in this order: a packet of A's live incarnation (B owes it an
        // ACK, built at B's next cycle), one of a later incarnation of A starting at A's next PSN, then
        // A's real message under that PSN, which B must now refuse as stale.
        Attacker x = new Attacker(f);
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), ctx.id, ctx.remoteContextId, a.epoch(), next + 1, next, qb.qpn(), SimFabric.QKEY, 8);
        x.data(1, SimFabric.ip(0), SimFabric.mac(0), ctx.id, ctx.remoteContextId, a.epoch() + 1, next, next, qb.qpn(), SimFabric.QKEY, 8);
        long now = f.network.clock().now() + 1_000;
        f.network.clock().advanceTo(now);
        MemorySegment msg = f.arena.allocate(8).fill((byte) 0x11);
        assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(99, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY)));
        a.doWork(now);
        f.network.clock().advanceTo(now + MS);
        b.doWork(now + MS);
        assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 2_000 * MS), "A gives up (its retry budget) in bounded time");
        TestQp.Wc send = qa.sends().get(0);
        long deliveredToB = qb.receives().stream().filter(wc -> qb.receiveBuffer().get(ValueLayout.JAVA_BYTE, wc.wrId() * 8) == 0x11)
            .count();
        assertEquals(0, deliveredToB, "A's message went under a PSN B gave to A's later incarnation");
        assertEquals(WcStatus.REMOTE_UNRESPONSIVE, send.status(),
            "the ACK B owed A's live incarnation may not carry its successor's window: it would complete A's message undelivered");
    }
}
