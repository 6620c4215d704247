package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.request;
import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.srd.SrdContext;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The context table under pressure: floods of new sources, reuse of slots, requests waiting out RNR. */
class ContextTableTest {
    static final long MS = 1_000_000;

    @Test
    void shouldKeepServingLegitimatePeersThroughAFloodOfSpoofedSources() {
        try (SimFabric f = new SimFabric(1)) {
            TransportConfig config = new TransportConfig().maxContexts(64);
            TransportDevice a = f.addHost(config);
            TransportDevice b = f.addHost(config);
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 64, 8);
            Attacker x = new Attacker(f);
            for (int i = 0; i < 4096; i++) {
                x.data(1, 0x0B00_0000 + i, Attacker.MAC, 1, 0, 0x5555, i, i, 0x7FFF, 0, 0);
                if (i % 256 == 255) {
                    f.runFor(10_000);
                }
            }
            f.runFor(100_000);
            assertTrue(b.contextCount() <= 64, "the table is bounded: " + b.contextCount());
            long heavy = b.liveContexts().stream().filter(SrdContext::hasRequesterState).count();
            assertEquals(0, heavy, "a context only ever received from holds no requester window");
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            for (int i = 0; i < 8; i++) {
                a.post(qa.qp(), send(i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 8, 20 * MS));
            assertTrue(qa.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS), "the flood costs the real peer nothing");
            assertEquals(8, qb.receives().size());
            assertTrue(b.counters().contextsEvicted > 0);
        }
    }

    @Test
    void shouldRefuseSizesThatCannotBeHeld() {
        assertThrows(IllegalArgumentException.class, () -> new TransportConfig().window(1 << 20).conclude(9000));
        assertThrows(IllegalArgumentException.class, () -> new TransportConfig().window(512).conclude(9000),
            "a window wider than one ACK's selective bitmap lets RACK call received packets lost");
        assertThrows(IllegalArgumentException.class, () -> new TransportConfig().maxContexts(1 << 20).conclude(9000));
        assertThrows(IllegalArgumentException.class, () -> new TransportConfig().maxQps(1 << 24).conclude(9000));
        assertThrows(IllegalArgumentException.class, () -> new TransportConfig().maxOutstandingRequests(1 << 30).conclude(9000));
        assertThrows(IllegalArgumentException.class, () -> new TransportConfig().burst(1 << 20).conclude(9000));
    }

    @Test
    void shouldKeepAContextWhileOneOfItsRequestsWaitsOutAnRnrBackoff() {
        try (SimFabric f = new SimFabric(1)) {
            TransportConfig config = new TransportConfig().maxContexts(1).idleContextNanos(20 * MS).rnrBackoffNanos(20 * MS).retryBudget(4)
                .rtoMaxNanos(2 * MS).maxPacketLifetimeNanos(MS);
            TransportDevice a = f.addHost(config);
            TransportDevice b = f.addHost(new TransportConfig());
            TransportDevice c = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            qa.qp().rnrRetry(7);
            TestQp qb = f.qp(b, 0, 8);
            TestQp qc = f.qp(c, 64, 8);
            MemorySegment msg = f.arena.allocate(8);
            a.post(qa.qp(), send(1, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            f.runFor(50 * MS); // RNR: the request waits, past the idle time; housekeeping runs meanwhile
            assertEquals(TransportDevice.POST_NO_RESOURCES,
                a.post(qa.qp(), send(2, msg, 0, 8).to(f.ah(a, 2), qc.qpn(), SimFabric.QKEY)),
                "the only context is busy with the waiting request: it may not be reclaimed for C");
            qb.qp().postReceive(9, f.arena.allocate(8), 0, 8);
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 200 * MS));
            assertEquals(WcStatus.SUCCESS, qa.sends().get(0).status());
            assertEquals(1, qb.receives().size(), "the message reached B");
            assertEquals(0, qc.receives().size(), "and nothing went to C");
        }
    }

    @Test
    void shouldStartAReusedContextSlotFromScratch() {
        try (SimFabric f = new SimFabric(1)) {
            TransportConfig config = new TransportConfig().maxContexts(1).idleContextNanos(10 * MS).transportTimeoutNanos(5 * MS)
                    .retryBudget(4)
                .rtoMaxNanos(2 * MS).maxPacketLifetimeNanos(MS);
            TransportDevice a = f.addHost(config);
            TransportDevice b = f.addHost(new TransportConfig());
            TransportDevice c = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 4, 8);
            TestQp qc = f.qp(c, 4, 8);
            MemorySegment msg = f.arena.allocate(8);
            f.network.blackhole(0, true);
            a.post(qa.qp(), send(1, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 500 * MS));
            assertEquals(WcStatus.REMOTE_UNRESPONSIVE, qa.sends().get(0).status());
            f.network.blackhole(0, false); // the avoided path answers its probe; then the idle context goes
            f.runFor(40 * MS);
            f.network.blackhole(0, true);
            assertEquals(0, a.contextCount());
            a.post(qa.qp(), send(2, msg, 0, 8).to(f.ah(a, 2), qc.qpn(), SimFabric.QKEY));
            SrdContext reused = a.existingContext(SimFabric.flow(2));
            assertNotNull(reused);
            assertEquals(0, reused.sender.rtt.srtt(), "no RTT carried over from B");
            assertEquals(0, reused.sender.timeouts);
            assertFalse(reused.sender.unresponsive);
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 500 * MS));
            int unresponsive = 0;
            for (AsyncEventQueue.AsyncEvent e; (e = a.events().poll()) != null; ) {
                unresponsive += e.type() == AsyncEventQueue.REMOTE_UNRESPONSIVE ? 1 : 0;
            }
            assertEquals(2, unresponsive, "C's silence is reported too, not hidden by B's old flag");
        }
    }

    @Test
    void shouldNameTheAddressHandleOfTheStalledRequestWhenRaisingRemoteUnresponsive() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig().transportTimeoutNanos(5 * MS).retryBudget(4).rtoMaxNanos(2 * MS));
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 4, 8);
            int unused = f.ah(a, 1);
            int used = f.ah(a, 1);
            f.network.blackhole(0, true);
            a.post(qa.qp(), send(1, f.arena.allocate(8), 0, 8).to(used, qb.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 500 * MS));
            AsyncEventQueue.AsyncEvent e = a.events().poll();
            assertEquals(AsyncEventQueue.REMOTE_UNRESPONSIVE, e.type());
            assertEquals(used, e.addressHandle(), "not handle " + unused + ", which nothing was sent through");
        }
    }

    @Test
    void shouldNotReuseAQpNumberWhilePacketsForItMayBeAlive() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp first = f.qp(b, 4, 8);
            int firstQpn = first.qpn();
            f.network.blackhole(0, true);
            a.post(qa.qp(), send(1, f.arena.allocate(8), 0, 8).to(f.ah(a, 1), firstQpn, SimFabric.QKEY));
            f.runFor(50_000);
            first.qp().destroy();
            TestQp second = f.qp(b, 4, 8);
            assertTrue(second.qpn() != firstQpn, "QP numbers rotate: " + second.qpn());
            f.network.blackhole(0, false);
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 200 * MS));
            assertEquals(WcStatus.BAD_DEST_QP_ERROR, qa.sends().get(0).status());
            assertEquals(0, second.receives().size(), "a retransmission for the destroyed QP never reaches its successor");
            for (int i = 0; i < 100; i++) {
                DeviceQp q = b.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(1).sendCq(second.sendCq()).recvCq(second.recvCq()));
                assertTrue(q.qpn() != firstQpn && q.qpn() > 0 && q.qpn() <= 0xFFFFFF);
                assertEquals(q, b.qp(q.qpn()));
                q.destroy();
                assertEquals(null, b.qp(q.qpn()));
            }
        }
    }

    @Test
    void shouldNotDeliverIntoARestartedPeersQpWhatWasSentToItsPredecessor() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            TransportDevice b = f.restart(1, new TransportConfig(), 0x1000);
            TestQp qa = f.qp(a, 0, 0);
            TestQp old = f.qp(b, 4, 8);
            a.post(qa.qp(), send(1, f.arena.allocate(8), 0, 8).to(f.ah(a, 1), old.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> old.recvCq().size() == 1, MS));
            f.network.blackhole(0, true); // B's ACK is lost: A never learns B's context id and retransmits to context 0
            f.runFor(100_000);
            // B restarts (a later epoch; the same seed, as a deterministic deployment passes) and creates its QP again.
            TransportDevice b2 = f.restart(1, new TransportConfig(), 0x2000);
            TestQp successor = f.qp(b2, 4, 8);
            f.network.blackhole(0, false);
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 500 * MS));
            assertEquals(0, successor.receives().size(), "a message for the old incarnation's QP " + old.qpn()
                + " never reaches the new incarnation's QP " + successor.qpn());
            assertEquals(WcStatus.BAD_DEST_QP_ERROR, qa.sends().get(0).status());
        }
    }

    @Test
    void shouldRefuseAnAddressHandleOnAnotherUdpPortWithAClearError() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> a.createAddressHandle(SimFabric.mac(1), SimFabric.ip(1), a.config().udpPort() + 1));
            assertTrue(e.getMessage().contains(String.valueOf(a.config().udpPort())), e.getMessage());
        }
    }

    @Test
    void shouldLetAnotherQpOnTheSameContextFlowWhileOneWaitsOutRnr() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig().rnrBackoffNanos(5 * MS));
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp stalled = f.qp(a, 0, 0);
            stalled.qp().rnrRetry(7);
            TestQp flowing = f.qp(a, 0, 0);
            TestQp empty = f.qp(b, 0, 8);
            TestQp full = f.qp(b, 256, 8);
            int ah = f.ah(a, 1);
            MemorySegment msg = f.arena.allocate(8);
            for (int i = 0; i < 4; i++) {
                a.post(stalled.qp(), send(i, msg, 0, 8).to(ah, empty.qpn(), SimFabric.QKEY));
            }
            for (int i = 0; i < 200; i++) {
                a.post(flowing.qp(), send(i, msg, 0, 8).to(ah, full.qpn(), SimFabric.QKEY));
            }
            assertTrue(f.runUntil(() -> flowing.sendCq().size() == 200, 2 * MS), "the other flow finishes well inside one RNR backoff");
            assertTrue(flowing.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
            assertEquals(0, stalled.sendCq().size(), "the stalled flow is still waiting");
            assertEquals(1, a.contextCount(), "both flows share one context");
        }
    }

    @Test
    void shouldCarryTenThousandOutstandingMessagesToOneAddressHandle() {
        try (SimFabric f = new SimFabric(4)) {
            TransportDevice a = f.addHost(new TransportConfig().paths(4));
            TransportDevice b = f.addHost(new TransportConfig().paths(4));
            CompletionQueue scq = new CompletionQueue(1 << 14);
            DeviceQp qp = a.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(10_000).sendCq(scq).recvCq(new CompletionQueue(4)));
            qp.modify(QpState.INIT, SimFabric.QKEY);
            qp.modify(QpState.RTR, 0);
            qp.modify(QpState.RTS, 0);
            TestQp qa = new TestQp(qp, scq, null, null);
            TestQp qb = f.qp(b, 10_000, 16);
            int ah = f.ah(a, 1);
            MemorySegment msg = f.arena.allocate(16);
            for (int i = 0; i < 10_000; i++) {
                assertEquals(TransportDevice.POST_OK, a.post(qp, request(i, SendOpcode.SEND_WITH_IMM, msg, 0, 16).immediate(i)
                    .to(ah, qb.qpn(), SimFabric.QKEY)));
            }
            assertEquals(10_000, qp.sendsOutstanding());
            assertTrue(f.runUntil(() -> scq.size() == 10_000, 500 * MS));
            List<TestQp.Wc> sends = qa.sends();
            assertTrue(sends.stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
            // Each message (its immediate) received exactly once: SUCCESS for all, and every one delivered once.
            int[] received = new int[10_000];
            for (TestQp.Wc wc : qb.receives()) {
                received[wc.imm()]++;
            }
            assertTrue(Arrays.stream(received).allMatch(n -> n == 1), "every message delivered exactly once");
        }
    }
}
