package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SQD: RTS → SQD stops new sends while those already posted run to completion, then raises one
 * SQ_DRAINED if the move asked for it; SQD → RTS resumes.
 */
class SqDrainTest {
    static final long MS = 1_000_000;
    static final int SENDS = 64;

    private static QpAttributes drain(boolean notify) {
        QpAttributes a = new QpAttributes().state(QpState.SQD);
        return notify ? a.sqDrainedNotify(true) : a;
    }

    /** Posts {@code count} signaled 64-byte sends, wr ids 0.., from {@code from} to {@code to} (host 1). */
    private static void postSends(SimFabric f, TransportDevice a, TestQp from, TestQp to, int count) {
        MemorySegment msg = f.arena.allocate(64);
        int ah = f.ah(a, 1);
        for (int i = 0; i < count; i++) {
            assertEquals(TransportDevice.POST_OK, a.post(from.qp(), send(i, msg, 0, 64).to(ah, to.qpn(), SimFabric.QKEY)));
        }
    }

    private static List<AsyncEventQueue.AsyncEvent> events(TransportDevice t) {
        List<AsyncEventQueue.AsyncEvent> out = new ArrayList<>();
        AsyncEventQueue.AsyncEvent e;
        while ((e = t.events().poll()) != null) {
            out.add(e);
        }
        return out;
    }

    @Test
    void shouldRunPostedSendsToCompletionUnderLossThenRaiseSqDrainedOnce() {
        LinkConfig lossy = LinkConfig.builder().lossProbability(0.1).build();
        try (SimFabric f = new SimFabric(4, lossy, 42)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, SENDS, 64);
            postSends(f, a, qa, qb, SENDS);
            int ah = f.ah(a, 1);
            MemorySegment msg = f.arena.allocate(64);
            f.runFor(20_000); // some are on the wire, some lost, none all acknowledged yet
            assertTrue(qa.qp().sendsOutstanding() > 0, "sends are still outstanding when the drain starts");

            qa.qp().modify(drain(true));
            assertEquals(QpState.SQD, qa.qp().state());
            assertTrue(qa.qp().query(new QpAttributes()).sqDraining());
            assertEquals(TransportDevice.POST_BAD_QP_STATE, a.post(qa.qp(), send(999, msg, 0, 64).to(ah, qb.qpn(), SimFabric.QKEY)),
                "no new sends in SQD");
            IllegalStateException early = assertThrows(IllegalStateException.class, () -> qa.qp().modify(QpState.RTS, 0));
            assertTrue(early.getMessage().contains("still draining"), early.getMessage());

            List<AsyncEventQueue.AsyncEvent> seen = new ArrayList<>();
            assertTrue(f.runUntil(() -> {
                for (AsyncEventQueue.AsyncEvent e : events(a)) {
                    assertEquals(0, qa.qp().sendsOutstanding(), "SQ_DRAINED only once nothing is outstanding");
                    seen.add(e);
                }
                return !seen.isEmpty();
            }, 500 * MS));
            f.runFor(10 * MS);
            seen.addAll(events(a));
            assertEquals(1, seen.size(), "one SQ_DRAINED: " + seen);
            assertEquals(AsyncEventQueue.SQ_DRAINED, seen.get(0).type());
            assertEquals("SQ_DRAINED", seen.get(0).typeName());
            assertEquals(qa.qpn(), seen.get(0).qpn());
            assertTrue(a.counters().txRetransmits > 0, "the loss was repaired while draining");

            List<TestQp.Wc> sends = qa.sends();
            assertEquals(SENDS, sends.size(), "every send posted before SQD completed");
            assertTrue(sends.stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
            assertEquals(SENDS, qb.receives().size(), "and was delivered");
            assertFalse(qa.qp().query(new QpAttributes()).sqDraining());

            qa.qp().modify(QpState.RTS, 0);
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(1000, msg, 0, 64).to(ah, qb.qpn(), SimFabric.QKEY)),
                "SQD -> RTS resumes");
        }
    }

    @Test
    void shouldRaiseSqDrainedAtOnceWhenNothingIsOutstanding() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            for (QpType type : new QpType[] {QpType.SRD, QpType.UD}) {
                DeviceQp qp = a.createQp(new TransportQpAttributes(type).sqDepth(4).rqDepth(4).sendCq(new CompletionQueue(8))
                    .recvCq(new CompletionQueue(8)));
                qp.modify(QpState.INIT, 1);
                qp.modify(QpState.RTR, 0);
                qp.modify(QpState.RTS, 0);
                qp.modify(drain(true));
                List<AsyncEventQueue.AsyncEvent> raised = events(a);
                assertEquals(1, raised.size(), type + ": drained already");
                assertEquals(qp.qpn(), raised.get(0).qpn());
            }
        }
    }

    @Test
    void shouldRaiseNothingUnlessTheMoveAskedForIt() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 4, 64);
            postSends(f, a, qa, qb, 1);
            qa.qp().modify(drain(false));
            assertTrue(f.runUntil(() -> qa.qp().sendsOutstanding() == 0, 10 * MS));
            f.runFor(MS);
            assertNull(a.events().poll(), "sqDrainedNotify was not set");
            qa.qp().modify(new QpAttributes().state(QpState.SQD).qkey(0x99)); // drained: SQD -> SQD may change attributes
            assertEquals(0x99, qa.qp().qkey());
            qa.qp().modify(QpState.RTS, 0);
        }
    }

    @Test
    void shouldFlushWithoutSqDrainedWhenADrainingQpGoesToError() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 4, 64);
            f.network.blackhole(0, true);
            postSends(f, a, qa, qb, 2);
            f.runFor(100_000);
            qa.qp().modify(drain(true));
            assertThrows(IllegalStateException.class, () -> qa.qp().modify(new QpAttributes().state(QpState.SQD).qkey(1)),
                "no attribute changes while draining");
            qa.qp().modify(QpState.ERROR, 0);
            List<TestQp.Wc> sends = qa.sends();
            assertEquals(2, sends.size());
            assertTrue(sends.stream().allMatch(wc -> wc.status() == WcStatus.WR_FLUSH_ERROR));
            f.runFor(MS);
            assertNull(a.events().poll(), "a drain cut short by ERROR never drained");
        }
    }
}
