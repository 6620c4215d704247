package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rule behind SRD's completions: a send completes SUCCESS only if its message reached a receive
 * completion exactly once; otherwise it completes with an error, and the responder's application is
 * told why its messages did not arrive.
 */
class CompletionTruthTest {
    static final long MS = 1_000_000;

    @Test
    void shouldNotAcknowledgeMessagesWhoseReceiveCompletionsOverrunTheCq() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            CompletionQueue smallCq = new CompletionQueue(4);
            DeviceQp qb = b.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(16).rqDepth(16).sendCq(new CompletionQueue(64))
                .recvCq(smallCq));
            qb.modify(QpState.INIT, SimFabric.QKEY);
            MemorySegment rbuf = f.arena.allocate(16 * 8);
            for (int i = 0; i < 16; i++) {
                qb.postReceive(1000 + i, rbuf, i * 8L, 8);
            }
            qb.modify(QpState.RTR, 0);
            qb.modify(QpState.RTS, 0);
            MemorySegment msg = f.arena.allocate(16 * 8);
            int ah = f.ah(a, 1);
            for (int i = 0; i < 16; i++) {
                msg.set(ValueLayout.JAVA_LONG_UNALIGNED, i * 8L, i);
                assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(i, msg, i * 8L, 8).to(ah, qb.qpn(), SimFabric.QKEY)));
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 16, 50 * MS));
            List<TestQp.Wc> sends = qa.sends();
            List<TestQp.Wc> receives = new TestQp(qb, null, smallCq, rbuf).receives();
            Set<Long> delivered = new HashSet<>();
            for (TestQp.Wc wc : receives) {
                if (wc.status() == WcStatus.SUCCESS) {
                    int slot = (int) (wc.wrId() - 1000);
                    delivered.add(rbuf.get(ValueLayout.JAVA_LONG_UNALIGNED, slot * 8L));
                }
            }
            long ok = sends.stream().filter(wc -> wc.status() == WcStatus.SUCCESS).count();
            for (TestQp.Wc wc : sends) {
                assertEquals(wc.status() == WcStatus.SUCCESS, delivered.contains(wc.wrId()),
                    "send " + wc.wrId() + " completed " + WcStatus.name(wc.status()) + ": SUCCESS iff its receive completion exists");
            }
            assertEquals(4, ok, "the CQ holds 4 receive completions: exactly those 4 sends succeed");
            assertTrue(sends.stream().filter(wc -> wc.status() != WcStatus.SUCCESS)
                    .allMatch(wc -> wc.status() == WcStatus.BAD_DEST_QP_ERROR),
                "the rest find the QP in ERROR: " + sends);
            AsyncEventQueue.AsyncEvent event = b.events().poll();
            assertNotNull(event, "B's application is told its CQ overran");
            assertEquals(AsyncEventQueue.CQ_ERROR, event.type());
            assertEquals(QpState.ERROR, qb.state(), "a CQ overrun is fatal to the QPs that report to it, as in verbs");
        }
    }

    @Test
    void shouldDeliverEveryDropIndicationUnderLossWhenThereAreManyMoreThanAnAckCarries() {
        LinkConfig lossy = LinkConfig.builder().lossProbability(0.2).build();
        try (SimFabric f = new SimFabric(4, lossy, 7)) {
            TransportConfig config = new TransportConfig().paths(4);
            TransportDevice a = f.addHost(config);
            f.addHost(config);
            TestQp qa = f.qp(a, 0, 0);
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            for (int i = 0; i < 64; i++) {
                assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(i, msg, 0, 8).to(ah, 0x7777, SimFabric.QKEY)));
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 64, 2_000 * MS));
            List<TestQp.Wc> sends = qa.sends();
            assertTrue(sends.stream().allMatch(wc -> wc.status() == WcStatus.BAD_DEST_QP_ERROR),
                "every send to a QP that does not exist completes BAD_DEST_QP, none REMOTE_UNRESPONSIVE: " + sends.stream()
                    .map(wc -> WcStatus.name(wc.status())).distinct().toList());
            assertEquals(0, a.events().raised(), "a live peer answering with drops is never called unresponsive");
        }
    }
}
