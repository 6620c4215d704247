package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.request;
import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.testing.DeliveryLedger;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.wire.DropReason;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The seed's §1–3 semantics on two simulated hosts: completions, statuses, isolation of QP errors. */
class SrdSemanticsTest {
    static final long MS = 1_000_000;

    @Test
    void shouldReportSuccessOnlyAfterTheResponderAcked() {
        try (SimFabric f = new SimFabric(4)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 4, 256);
            MemorySegment msg = f.arena.allocateFrom("hello srd");
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), request(7, SendOpcode.SEND_WITH_IMM, msg, 0, (int) msg.byteSize())
                .immediate(42).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY)));
            a.doWork(0);
            assertEquals(List.of(), qa.sends(), "nothing completes before the ACK comes back");
            assertTrue(f.runUntil(() -> qa.sendCq().size() > 0, MS));
            List<TestQp.Wc> sends = qa.sends();
            assertEquals(1, sends.size());
            assertEquals(WcStatus.SUCCESS, sends.get(0).status());
            assertEquals(7, sends.get(0).wrId());
            assertTrue(f.network.clock().now() >= 2 * 3 * 2_000, "a round trip over three 2 µs links each way");
            List<TestQp.Wc> recvs = qb.receives();
            assertEquals(1, recvs.size());
            TestQp.Wc r = recvs.get(0);
            assertEquals(WcOpcode.RECV_WITH_IMM, r.opcode());
            assertEquals(42, r.imm());
            assertEquals(msg.byteSize(), r.byteLength());
            assertEquals(qa.qpn(), r.srcQpn());
            assertEquals(SimFabric.ip(0), r.srcIp());
            assertEquals("hello srd", qb.receiveBuffer().getString(0));
        }
    }

    @Test
    void shouldCompleteWithLocalLengthErrorAboveTheMtuWithoutSending() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            MemorySegment big = f.arena.allocate(a.mtu() + 1);
            assertEquals(4096, a.mtu(), "the simulated link carries the 4096-byte SRD MTU");
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(1, big, 0, a.mtu() + 1).to(f.ah(a, 1), 1, SimFabric.QKEY)));
            f.runFor(MS);
            assertEquals(WcStatus.LOCAL_LENGTH_ERROR, qa.sends().get(0).status());
            assertEquals(0, a.counters().txData, "no segmentation: nothing goes on the wire");
        }
    }

    @Test
    void shouldCompleteEachQpCheckFailureWithItsStatusWithoutRetryingOrDisturbingOthers() {
        try (SimFabric f = new SimFabric(4)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp good = f.qp(b, 8, 64);
            TestQp noReceives = f.qp(b, 0, 64);
            TestQp small = f.qp(b, 4, 16);
            int ah = f.ah(a, 1);
            MemorySegment msg = f.arena.allocate(32);
            a.post(qa.qp(), send(1, msg, 0, 32).to(ah, 999, SimFabric.QKEY));              // no such QP
            a.post(qa.qp(), send(2, msg, 0, 32).to(ah, noReceives.qpn(), SimFabric.QKEY)); // no receive posted
            a.post(qa.qp(), send(3, msg, 0, 32).to(ah, small.qpn(), SimFabric.QKEY));      // does not fit
            a.post(qa.qp(), send(4, msg, 0, 32).to(ah, good.qpn(), 0xBAD));                // wrong Q_Key
            a.post(qa.qp(), send(5, msg, 0, 32).to(ah, good.qpn(), SimFabric.QKEY));       // fine
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 5, 10 * MS));
            int[] status = new int[6];
            for (TestQp.Wc wc : qa.sends()) {
                status[(int) wc.wrId()] = wc.status();
            }
            assertEquals(WcStatus.BAD_DEST_QP_ERROR, status[1]);
            assertEquals(WcStatus.RNR_ERROR, status[2]);
            assertEquals(WcStatus.REMOTE_OPERATION_ERROR, status[3]);
            assertEquals(WcStatus.REMOTE_INVALID_REQUEST_ERROR, status[4]);
            assertEquals(WcStatus.SUCCESS, status[5]);
            assertEquals(5, a.counters().txData, "drop indications are final: no retries (RNR retry defaults to 0)");
            assertEquals(0, a.counters().txRetransmits);
            assertEquals(1, good.receives().size());
            assertEquals(4, small.qp().receivesPosted(), "a refused message consumes no receive");
            // The context is unharmed: more traffic flows normally.
            a.post(qa.qp(), send(6, msg, 0, 32).to(ah, good.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 10 * MS));
            assertEquals(WcStatus.SUCCESS, qa.sends().get(0).status());
        }
    }

    @Test
    void shouldRetryRnrWithBackoffWhenTheQpAllowsIt() {
        try (SimFabric f = new SimFabric(2)) {
            TransportDevice a = f.addHost(new TransportConfig().rnrBackoffNanos(50_000));
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            qa.qp().rnrRetry(3);
            TestQp qb = f.qp(b, 0, 64);
            MemorySegment msg = f.arena.allocate(8);
            a.post(qa.qp(), send(1, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            f.runFor(60_000); // the first try meets no receive
            assertEquals(1, b.counters().dropsSent[DropReason.RNR]);
            qb.qp().postReceive(0, qb.receiveBuffer().reinterpret(64), 0, 64);
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 10 * MS));
            assertEquals(WcStatus.SUCCESS, qa.sends().get(0).status());
            assertEquals(1, qb.receives().size());
        }
    }

    @Test
    void shouldSendOnlySignaledSuccessesButEveryError() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 4, 64);
            MemorySegment msg = f.arena.allocate(8);
            a.post(qa.qp(), send(1, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY).signaled(false));
            a.post(qa.qp(), send(2, msg, 0, 8).to(f.ah(a, 1), 77, SimFabric.QKEY).signaled(false));
            assertTrue(f.runUntil(() -> qa.qp().sendsOutstanding() == 0, 10 * MS));
            List<TestQp.Wc> sends = qa.sends();
            assertEquals(1, sends.size(), "the unsignaled success is silent, the error is not");
            assertEquals(WcStatus.BAD_DEST_QP_ERROR, sends.get(0).status());
        }
    }

    @Test
    void shouldDeliverInArrivalOrderWithoutHeadOfLineBlocking() {
        // Path 0 is dead: the first message is lost there; later ones on other paths are delivered before its retransmission.
        try (SimFabric f = new SimFabric(4)) {
            TransportDevice a = f.addHost(new TransportConfig().paths(4));
            TransportDevice b = f.addHost(new TransportConfig());
            f.network.blackhole(0, true);
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 16, 8);
            MemorySegment msg = f.arena.allocate(8);
            for (int i = 0; i < 8; i++) {
                a.post(qa.qp(), request(i, SendOpcode.SEND_WITH_IMM, msg, 0, 8).immediate(i).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 8, 50 * MS));
            List<TestQp.Wc> recvs = qb.receives();
            assertEquals(8, recvs.size());
            assertTrue(recvs.get(0).imm() != 0, "a message after the lost one arrived first: " + recvs);
            assertTrue(a.counters().txRetransmits > 0);
        }
    }

    @Test
    void shouldNeverDeliverTwiceUnderHeavyDuplication() {
        LinkConfig dupes = LinkConfig.builder().duplicateProbability(0.5).reorderProbability(0.3).build();
        try (SimFabric f = new SimFabric(4, dupes, 5)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 2000, 8);
            MemorySegment msg = f.arena.allocate(8 * 1000);
            for (int i = 0; i < 1000; i++) {
                msg.set(ValueLayout.JAVA_LONG, i * 8L, i);
                assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), request(i, SendOpcode.SEND_WITH_IMM, msg, i * 8L, 8).immediate(i)
                    .to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY)));
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1000, 100 * MS));
            assertTrue(f.network.totals().duplicates() > 300, "the network did duplicate");
            DeliveryLedger deliveries = new DeliveryLedger(1000, "delivered");
            for (TestQp.Wc r : qb.receives()) {
                deliveries.book(r.imm());
            }
            deliveries.assertAllBooked();
            assertTrue(b.counters().duplicates > 300, "duplicates were seen and acked, not delivered");
        }
    }

    @Test
    void shouldTakeMessagesUpToExactlyTheMtu() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            int mtu = a.mtu();
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 2, mtu + 1);
            MemorySegment msg = f.arena.allocate(mtu + 1);
            for (int i = 0; i <= mtu; i++) {
                msg.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            a.post(qa.qp(), send(1, msg, 0, mtu).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            a.post(qa.qp(), send(2, msg, 0, mtu + 1).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 2, 10 * MS));
            List<TestQp.Wc> sends = qa.sends();
            assertEquals(WcStatus.LOCAL_LENGTH_ERROR, sends.stream().filter(wc -> wc.wrId() == 2).findFirst().orElseThrow().status());
            assertEquals(WcStatus.SUCCESS, sends.stream().filter(wc -> wc.wrId() == 1).findFirst().orElseThrow().status());
            List<TestQp.Wc> received = qb.receives();
            assertEquals(1, received.size());
            assertEquals(mtu, received.get(0).byteLength());
            assertEquals(-1, qb.receiveBuffer().asSlice(0, mtu).mismatch(msg.asSlice(0, mtu)), "the MTU-sized payload arrives intact");
        }
    }

    @Test
    void shouldNotDeliverToAQpStillInInit() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            CompletionQueue rcq = new CompletionQueue(8);
            DeviceQp init = b.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(4).rqDepth(4).sendCq(new CompletionQueue(8))
                .recvCq(rcq));
            init.modify(QpState.INIT, SimFabric.QKEY);
            assertTrue(init.postReceive(1, f.arena.allocate(64), 0, 64), "INIT takes receives");
            a.post(qa.qp(), send(1, f.arena.allocate(8), 0, 8).to(f.ah(a, 1), init.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 10 * MS));
            assertEquals(WcStatus.BAD_DEST_QP_ERROR, qa.sends().get(0).status(), "but receives nothing before RTR");
            assertEquals(0, rcq.size());
            assertEquals(1, init.receivesPosted());
        }
    }
}
