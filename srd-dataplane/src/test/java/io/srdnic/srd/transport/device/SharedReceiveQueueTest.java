package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.wire.DropReason;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Shared receive queues on two simulated hosts: host 0 sends, host 1's QPs (SRD and UD) take their
 * receives from one SRQ. Receives are {@link #SIZE} bytes, wr id i at offset i × SIZE of one buffer.
 */
class SharedReceiveQueueTest {
    static final long MS = 1_000_000;
    static final int SIZE = 64;

    /** A QP of {@code type} in RTS on {@code srq}, with CQs of its own. */
    static TestQp onSrq(TransportDevice t, QpType type, SharedReceiveQueue srq) {
        CompletionQueue scq = new CompletionQueue(1 << 10);
        CompletionQueue rcq = new CompletionQueue(1 << 10);
        DeviceQp qp = t.createQp(new TransportQpAttributes(type).sqDepth(64).srq(srq).sendCq(scq).recvCq(rcq));
        qp.modify(QpState.INIT, SimFabric.QKEY);
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        return new TestQp(qp, scq, rcq, null);
    }

    /** Posts receives {@code first} .. {@code first + n - 1} to {@code srq}. */
    static void post(SharedReceiveQueue srq, MemorySegment buffer, int first, int n) {
        for (int i = first; i < first + n; i++) {
            assertTrue(srq.postReceive(i, buffer, (long) i * SIZE, SIZE), "room for receive " + i);
        }
    }

    /** Sends {@code length} bytes from host 0 to {@code to} and runs until the send completes; returns its status. */
    static int sendAndWait(SimFabric f, TestQp from, TestQp to, long wrId, int length) {
        TransportDevice a = f.host(0);
        MemorySegment msg = f.arena.allocate(Math.max(1, length));
        msg.set(ValueLayout.JAVA_LONG, 0, wrId);
        assertEquals(TransportDevice.POST_OK, a.post(from.qp(), send(wrId, msg, 0, length).to(f.ah(a, 1), to.qpn(), SimFabric.QKEY)));
        assertTrue(f.runUntil(() -> from.sendCq().size() > 0, 10 * MS), "the send completes");
        return from.sends().get(0).status();
    }

    static List<AsyncEventQueue.AsyncEvent> events(TransportDevice t) {
        List<AsyncEventQueue.AsyncEvent> out = new ArrayList<>();
        for (AsyncEventQueue.AsyncEvent e; (e = t.events().poll()) != null; ) {
            out.add(e);
        }
        return out;
    }

    @Test
    void shouldLetAnSrdAndAUdQpTakeReceivesFromOneSrqInPostingOrder() {
        try (SimFabric f = new SimFabric(2)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp srdSender = f.qp(a, 0, 0);
            TestQp udSender = UdDatagramTest.udQp(f, a, 0, 0);
            SharedReceiveQueue srq = b.createSrq(8, 0);
            TestQp srd = onSrq(b, QpType.SRD, srq);
            TestQp ud = onSrq(b, QpType.UD, srq);
            MemorySegment buffer = f.arena.allocate(8 * SIZE);
            post(srq, buffer, 0, 6);
            assertEquals(6, srq.receivesPosted());
            for (int i = 0; i < 6; i++) {
                boolean toSrd = i % 3 != 2; // SRD, SRD, UD, SRD, SRD, UD
                TestQp to = toSrd ? srd : ud;
                assertEquals(WcStatus.SUCCESS, sendAndWait(f, toSrd ? srdSender : udSender, to, 100 + i, 8));
                assertTrue(f.runUntil(() -> to.recvCq().size() > 0, 10 * MS), "message " + i + " received");
                TestQp.Wc r = to.receives().get(0);
                assertEquals(i, r.wrId(), "the SRQ's receives are taken in posting order, whichever QP the message came to");
                assertEquals(to.qpn(), r.qpn(), "the completion names the QP the message arrived on, not the SRQ");
                assertEquals(WcOpcode.RECV, r.opcode());
                assertEquals((toSrd ? srdSender : udSender).qpn(), r.srcQpn());
                assertEquals(100 + i, buffer.get(ValueLayout.JAVA_LONG, (long) i * SIZE), "into receive " + i + "'s buffer");
            }
            assertEquals(0, srq.receivesPosted());
            assertEquals(6, srq.receivesTaken());
            post(srq, buffer, 6, 1);
            assertEquals(1, ud.qp().receivesPosted(), "a QP on an SRQ reports the SRQ's receives");
        }
    }

    @Test
    void shouldRaiseTheLimitEventOncePerArming() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp sender = f.qp(a, 0, 0);
            SharedReceiveQueue srq = b.createSrq(8, 0);
            TestQp qp = onSrq(b, QpType.SRD, srq);
            post(srq, f.arena.allocate(8 * SIZE), 0, 6);
            srq.modify(4);
            assertEquals(4, srq.limit());
            sendAndWait(f, sender, qp, 1, 8); // 5 left
            sendAndWait(f, sender, qp, 2, 8); // 4 left: at the limit, not below
            assertEquals(List.of(), events(b), "not below the limit yet");
            sendAndWait(f, sender, qp, 3, 8); // 3 left: below
            List<AsyncEventQueue.AsyncEvent> raised = events(b);
            assertEquals(1, raised.size());
            assertEquals(AsyncEventQueue.SRQ_LIMIT_REACHED, raised.get(0).type());
            assertEquals("SRQ_LIMIT_REACHED", raised.get(0).typeName());
            assertEquals(srq.srqn(), raised.get(0).srqn());
            assertEquals(0, srq.limit(), "disarmed once raised");
            sendAndWait(f, sender, qp, 4, 8); // 2 left
            assertEquals(List.of(), events(b), "not again until re-armed");
            srq.modify(2);
            sendAndWait(f, sender, qp, 5, 8); // 1 left
            assertEquals(1, events(b).size(), "re-armed, it fires again");
            srq.modify(2);
            srq.modify(0);
            sendAndWait(f, sender, qp, 6, 8); // 0 left
            assertEquals(List.of(), events(b), "a limit of 0 disarms it");
            assertEquals(6, qp.receives().size());
        }
    }

    @Test
    void shouldArmTheLimitGivenAtCreation() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp sender = UdDatagramTest.udQp(f, a, 0, 0);
            SharedReceiveQueue srq = b.createSrq(4, 2);
            TestQp qp = onSrq(b, QpType.UD, srq);
            post(srq, f.arena.allocate(4 * SIZE), 0, 2);
            sendAndWait(f, sender, qp, 1, 8);
            assertTrue(f.runUntil(() -> qp.recvCq().size() == 1, 10 * MS));
            assertEquals(srq.srqn(), events(b).get(0).srqn(), "1 left, below the limit set at creation");
        }
    }

    @Test
    void shouldRefuseALimitAboveMaxWr() {
        try (SimFabric f = new SimFabric(1)) {
            f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            assertThrows(IllegalArgumentException.class, () -> b.createSrq(4, 5));
            assertThrows(IllegalArgumentException.class, () -> b.createSrq(0, 0));
            SharedReceiveQueue srq = b.createSrq(4, 2);
            assertThrows(IllegalArgumentException.class, () -> srq.modify(5));
            assertThrows(IllegalArgumentException.class, () -> srq.modify(-1));
            assertEquals(2, srq.limit(), "a refused modify changes nothing");
        }
    }

    @Test
    void shouldDeliverToAnEmptySrqOnceAReceiveIsPostedWhenRnrRetryAllows() {
        try (SimFabric f = new SimFabric(2)) {
            TransportDevice a = f.addHost(new TransportConfig().rnrBackoffNanos(50_000));
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp noRetry = f.qp(a, 0, 0);
            TestQp retrying = f.qp(a, 0, 0);
            retrying.qp().rnrRetry(3);
            SharedReceiveQueue srq = b.createSrq(4, 0);
            TestQp qp = onSrq(b, QpType.SRD, srq);
            TestQp ud = onSrq(b, QpType.UD, srq);
            assertEquals(WcStatus.RNR_ERROR, sendAndWait(f, noRetry, qp, 1, 8), "rnr_retry 0: the drop indication is final");
            sendAndWait(f, UdDatagramTest.udQp(f, a, 0, 0), ud, 1, 8);
            f.runFor(MS);
            assertEquals(1, b.counters().datagramsDropped, "UD: a datagram that finds the SRQ empty is dropped silently");
            MemorySegment msg = f.arena.allocate(8);
            a.post(retrying.qp(), send(2, msg, 0, 8).to(f.ah(a, 1), qp.qpn(), SimFabric.QKEY));
            f.runFor(60_000); // the first try meets an empty SRQ
            assertEquals(2, b.counters().dropsSent[DropReason.RNR]);
            post(srq, f.arena.allocate(SIZE), 0, 1);
            assertTrue(f.runUntil(() -> retrying.sendCq().size() == 1, 10 * MS));
            assertEquals(WcStatus.SUCCESS, retrying.sends().get(0).status());
            assertEquals(1, qp.receives().size());
            assertEquals(0, srq.receivesPosted());
        }
    }

    @Test
    void shouldLeaveTheSrqsReceivesToTheOtherQpWhenOneGoesToErrorOrReset() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp sender = f.qp(a, 0, 0);
            SharedReceiveQueue srq = b.createSrq(4, 0);
            TestQp failing = onSrq(b, QpType.SRD, srq);
            TestQp resetting = onSrq(b, QpType.UD, srq);
            TestQp other = onSrq(b, QpType.SRD, srq);
            post(srq, f.arena.allocate(4 * SIZE), 0, 3);
            failing.qp().modify(QpState.ERROR, 0);
            resetting.qp().modify(QpState.RESET, 0);
            assertEquals(List.of(), failing.receives(), "no flush completions: the receives are the SRQ's");
            assertEquals(List.of(), resetting.receives());
            assertEquals(3, srq.receivesPosted());
            assertEquals(WcStatus.BAD_DEST_QP_ERROR, sendAndWait(f, sender, failing, 1, 8), "the QP in ERROR receives nothing");
            assertEquals(WcStatus.SUCCESS, sendAndWait(f, sender, other, 2, 8));
            assertTrue(f.runUntil(() -> other.recvCq().size() == 1, 10 * MS));
            assertEquals(0, other.receives().get(0).wrId(), "the other QP takes the first receive posted");
            assertEquals(2, srq.receivesPosted());
        }
    }

    @Test
    void shouldRefuseToDestroyAnSrqWhileAQpUsesIt() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice b = f.addHost(new TransportConfig());
            SharedReceiveQueue srq = b.createSrq(4, 0);
            TestQp first = onSrq(b, QpType.SRD, srq);
            TestQp second = onSrq(b, QpType.UD, srq);
            first.qp().modify(QpState.ERROR, 0);
            IllegalStateException e = assertThrows(IllegalStateException.class, srq::destroy);
            assertTrue(e.getMessage().contains("still used by 2 QP(s)"), e.getMessage());
            first.qp().destroy();
            assertThrows(IllegalStateException.class, srq::destroy, "one QP still uses it");
            second.qp().destroy();
            srq.destroy();
            assertTrue(srq.isDestroyed());
            CompletionQueue cq = new CompletionQueue(4);
            assertThrows(IllegalStateException.class, () -> b.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(4).srq(srq).sendCq(cq)
                .recvCq(cq)), "no QP on a destroyed SRQ");
            assertThrows(IllegalStateException.class, () -> srq.postReceive(1, f.arena.allocate(SIZE), 0, SIZE));
            SharedReceiveQueue otherDevices = f.addHost(new TransportConfig()).createSrq(4, 0);
            assertThrows(IllegalArgumentException.class, () -> b.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(4).srq(otherDevices)
                .sendCq(cq).recvCq(cq)));
            assertEquals(0, otherDevices.qpsUsing());
        }
    }

    @Test
    void shouldRefuseAReceivePostedStraightToAQpOnAnSrq() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice b = f.addHost(new TransportConfig());
            SharedReceiveQueue srq = b.createSrq(4, 0);
            TestQp qp = onSrq(b, QpType.SRD, srq);
            assertEquals(srq, qp.qp().srq());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> qp.qp()
                    .postReceive(1, f.arena.allocate(SIZE), 0, SIZE));
            assertTrue(e.getMessage().contains("SRQ " + srq.srqn()), e.getMessage());
            assertEquals(0, srq.receivesPosted());
            assertThrows(IndexOutOfBoundsException.class, () -> srq.postReceive(1, f.arena.allocate(SIZE), 8, SIZE));
            post(srq, f.arena.allocate(4 * SIZE), 0, 4);
            assertEquals(false, srq.postReceive(9, f.arena.allocate(SIZE), 0, SIZE), "full at max_wr");
        }
    }

    @Test
    void shouldAnswerRemoteOperationErrorForAMessageLongerThanTheSrqsReceiveTakingNothing() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp sender = f.qp(a, 0, 0);
            SharedReceiveQueue srq = b.createSrq(4, 2);
            TestQp qp = onSrq(b, QpType.SRD, srq);
            post(srq, f.arena.allocate(4 * SIZE), 0, 2);
            assertEquals(WcStatus.REMOTE_OPERATION_ERROR, sendAndWait(f, sender, qp, 1, SIZE + 1));
            assertEquals(List.of(), qp.receives());
            assertEquals(2, srq.receivesPosted(), "the refused message takes no receive");
            assertEquals(0, srq.receivesTaken());
            assertEquals(List.of(), events(b), "nor moves the SRQ towards its limit");
            assertEquals(WcStatus.SUCCESS, sendAndWait(f, sender, qp, 2, SIZE));
            assertTrue(f.runUntil(() -> qp.recvCq().size() == 1, 10 * MS));
            TestQp.Wc r = qp.receives().get(0);
            assertEquals(0, r.wrId(), "the next message takes the receive the long one left");
            assertEquals(SIZE, r.byteLength());
        }
    }
}
