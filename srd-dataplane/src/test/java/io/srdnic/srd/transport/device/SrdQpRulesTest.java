package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.srd.SrdContext;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdParser;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** UD's QP rules, which SRD keeps, and the responder's answers to what SRD does not support. */
class SrdQpRulesTest {
    static final long MS = 1_000_000;

    @Test
    void shouldFollowTheUdStateMachine() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            DeviceQp qp = a.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(4).rqDepth(4).sendCq(new CompletionQueue(8))
                .recvCq(new CompletionQueue(8)));
            assertEquals(QpState.RESET, qp.state());
            MemorySegment buf = f.arena.allocate(8);
            assertThrows(IllegalStateException.class, () -> qp.postReceive(1, buf, 0, 8), "no receives in RESET");
            assertThrows(IllegalStateException.class, () -> qp.modify(QpState.RTS, 0), "RESET -> RTS skips INIT and RTR");
            assertThrows(IllegalStateException.class, () -> qp.modify(QpState.RTR, 0));
            qp.modify(QpState.INIT, 0x42);
            assertEquals(0x42, qp.qkey());
            assertTrue(qp.postReceive(1, buf, 0, 8), "receives may be posted from INIT on");
            assertEquals(TransportDevice.POST_BAD_QP_STATE, a.post(qp, send(1, buf, 0, 8).to(f.ah(a, 1), 1, 0x42)),
                "sends need RTS");
            qp.modify(QpState.RTR, 0);
            assertThrows(IllegalStateException.class, () -> qp.modify(QpState.INIT, 0), "RTR -> INIT is not a UD transition");
            qp.modify(QpState.RTS, 0);
            qp.modify(QpState.RTS, 0);
            qp.modify(QpState.ERROR, 0);
            assertEquals(QpState.ERROR, qp.state());
            qp.modify(QpState.RESET, 0);
            qp.destroy();
            assertThrows(IllegalStateException.class, () -> qp.modify(QpState.INIT, 1), "a destroyed QP cannot be used");
        }
    }

    /** An SRD QP of {@code a} in RTS with a send queue of {@code sqDepth}, completing on {@code scq}. */
    private static DeviceQp readyQp(TransportDevice a, int sqDepth, CompletionQueue scq) {
        DeviceQp qp = a.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(sqDepth).sendCq(scq).recvCq(new CompletionQueue(4)));
        qp.modify(QpState.INIT, 1);
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        return qp;
    }

    @Test
    void shouldRefuseAPostToAFullSendQueue() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            DeviceQp qp = readyQp(a, 2, new CompletionQueue(16));
            MemorySegment buf = f.arena.allocate(16);
            int ah = f.ah(a, 1);
            assertEquals(TransportDevice.POST_OK, a.post(qp, send(1, buf, 0, 8).to(ah, 1, 1)));
            assertEquals(TransportDevice.POST_OK, a.post(qp, send(2, buf, 8, 8).to(ah, 1, 1)));
            assertEquals(TransportDevice.POST_SQ_FULL, a.post(qp, send(3, buf, 0, 8).to(ah, 1, 1)));
            assertEquals(2, qp.sendsOutstanding(), "the refused request took no room");
            assertTrue(f.runUntil(() -> qp.sendsOutstanding() == 0, 10 * MS));
            assertEquals(TransportDevice.POST_OK, a.post(qp, send(4, buf, 0, 8).to(ah, 1, 1)), "room again once the two complete");
        }
    }

    @Test
    void shouldRefuseAPostNamingAnUnknownAddressHandle() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            DeviceQp qp = readyQp(a, 2, new CompletionQueue(16));
            MemorySegment buf = f.arena.allocate(16);
            assertEquals(TransportDevice.POST_BAD_ADDRESS_HANDLE, a.post(qp, send(4, buf, 0, 8).to(12345, 1, 1)));
            assertEquals(0, qp.sendsOutstanding(), "nothing posted");
        }
    }

    @Test
    void shouldCompleteASendPastTheEndOfItsBufferWithLocalProtectionError() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            CompletionQueue scq = new CompletionQueue(16);
            DeviceQp qp = readyQp(a, 2, scq);
            MemorySegment buf = f.arena.allocate(16);
            assertEquals(TransportDevice.POST_OK, a.post(qp, send(5, buf, 12, 8).to(f.ah(a, 1), 1, 1)));
            int[] status = {-1};
            scq.poll((wr, st, op, len, hasImm, imm, qpn, src, ip) -> status[0] = st, 1);
            assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, status[0], "a segment that runs past its buffer");
            assertEquals(0, a.counters().txData, "nothing went on the wire");
        }
    }

    @Test
    void shouldFlushSendsAndReceivesWhenTheQpGoesToError() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 3, 8);
            TestQp qb = f.qp(b, 8, 8);
            f.network.blackhole(0, true);
            MemorySegment msg = f.arena.allocate(8);
            a.post(qa.qp(), send(1, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            a.post(qa.qp(), send(2, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            f.runFor(100_000);
            qa.qp().modify(QpState.ERROR, 0);
            List<TestQp.Wc> sends = qa.sends();
            List<TestQp.Wc> recvs = qa.receives();
            assertEquals(2, sends.size());
            assertTrue(sends.stream().allMatch(wc -> wc.status() == WcStatus.WR_FLUSH_ERROR));
            assertEquals(3, recvs.size());
            assertTrue(recvs.stream().allMatch(wc -> wc.status() == WcStatus.WR_FLUSH_ERROR));
        }
    }

    @Test
    void shouldAnswerBadDestQpForAQpInErrorWithoutChangingTheSendersQp() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 8, 8);
            qb.qp().modify(QpState.ERROR, 0);
            qb.receives();
            MemorySegment msg = f.arena.allocate(8);
            a.post(qa.qp(), send(1, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 1, 10 * MS));
            assertEquals(WcStatus.BAD_DEST_QP_ERROR, qa.sends().get(0).status());
            assertEquals(QpState.RTS, qa.qp().state(), "remote errors do not change the local QP's state");
        }
    }

    @Test
    void shouldHaveManyMessagesOnTheWireAtOnce() {
        try (SimFabric f = new SimFabric(4)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 256, 8);
            MemorySegment msg = f.arena.allocate(8);
            for (int i = 0; i < 200; i++) {
                a.post(qa.qp(), send(i, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            }
            int[] mostInFlight = {0};
            assertTrue(f.runUntil(() -> {
                SrdContext ctx = a.existingContext(SimFabric.flow(1));
                mostInFlight[0] = Math.max(mostInFlight[0], ctx == null ? 0 : ctx.sender.inflight);
                return qa.sendCq().size() == 200;
            }, 10 * MS));
            assertTrue(mostInFlight[0] > 16,
                "unlike RD, one SRD QP has many messages unacknowledged at once as the window opens: " + mostInFlight[0]);
        }
    }

    @Test
    void shouldAnswerAnRdmaWriteNamingNoRegionWithARemoteAccessDrop() {
        try (SimFabric f = new SimFabric(1)) {
            f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qb = f.qp(b, 8, 64);
            // A raw host speaks SRD by hand: an RDMA WRITE with an rkey no region has.
            SimPort raw = f.network.addHost(SimFabric.mac(2));
            MbufBatch batch = new MbufBatch(f.arena, 1);
            assertEquals(1, raw.allocate(batch, 1));
            Mbuf m = batch.get(0);
            SrdHeader.versionAndType(m, PacketType.RDMA_WRITE);
            SrdHeader.flags(m, 0);
            SrdHeader.payloadLength(m, RdmaHeader.LENGTH + 8);
            RdmaHeader.write(m, 0x1000, 0x1234_5678, 8, 0);
            SrdHeader.sourceContext(m, 77);
            SrdHeader.destinationContext(m, 0);
            SrdHeader.epoch(m, 5);
            SrdHeader.psn(m, 1000);
            SrdHeader.sendBase(m, 1000);
            SrdHeader.sourceQpn(m, 9);
            SrdHeader.destinationQpn(m, qb.qpn());
            SrdHeader.qkey(m, SimFabric.QKEY);
            SrdHeader.immediate(m, 0);
            SrdHeader.timestamp(m, 1);
            Ipv4UdpFrame.write(m, SimFabric.mac(2), SimFabric.mac(1), SimFabric.ip(2), SimFabric.ip(1), SrdPort.ENTROPY_BASE,
                b.config().udpPort(), SrdHeader.LENGTH + RdmaHeader.LENGTH + 8, true);
            assertEquals(1, raw.transmit(batch));
            f.runFor(100_000);
            assertEquals(1, raw.receive(batch));
            Mbuf ack = batch.get(0);
            assertEquals(PacketType.ACK, SrdParser.parse(ack, b.config().udpPort(), b.mtu()));
            assertEquals(1, SrdAck.dropCount(ack));
            assertEquals(1000, SrdAck.dropPsn(ack, 0));
            assertEquals(DropReason.REMOTE_ACCESS, SrdAck.dropReason(ack, 0));
            assertEquals(1000, SrdAck.cumulativePsn(ack), "a dropped PSN is never claimed as received");
            assertEquals(77, SrdAck.destinationContext(ack));
            raw.free(batch);
            assertEquals(0, qb.receives().size());
        }
    }
}
