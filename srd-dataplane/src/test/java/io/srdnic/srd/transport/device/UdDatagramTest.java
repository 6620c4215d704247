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
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.wire.PacketType;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** UD keeps UD semantics on the same dataplane: no ACKs, no retransmissions, completion as it leaves. */
class UdDatagramTest {

    static TestQp udQp(SimFabric f, TransportDevice t, int receives, int size) {
        CompletionQueue scq = new CompletionQueue(1 << 14);
        CompletionQueue rcq = new CompletionQueue(1 << 14);
        DeviceQp qp = t.createQp(new TransportQpAttributes(QpType.UD).sqDepth(4096).rqDepth(Math.max(1, receives)).sendCq(scq).recvCq(rcq));
        qp.modify(QpState.INIT, SimFabric.QKEY);
        MemorySegment buffer = f.arena.allocate(Math.max(1, (long) receives * size));
        for (int i = 0; i < receives; i++) {
            qp.postReceive(i, buffer, (long) i * size, size);
        }
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        return new TestQp(qp, scq, rcq, buffer);
    }

    @Test
    void shouldDeliverDatagramsWithoutAcknowledgements() {
        try (SimFabric f = new SimFabric(4)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = udQp(f, a, 0, 0);
            TestQp qb = udQp(f, b, 100, 64);
            MemorySegment msg = f.arena.allocateFrom("datagram");
            for (int i = 0; i < 50; i++) {
                assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), request(i, SendOpcode.SEND_WITH_IMM, msg, 0, 9).immediate(i)
                    .to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY)));
            }
            a.doWork(0);
            assertEquals(50, qa.sends().size(), "UD sends complete as they leave, before anything arrives");
            assertTrue(f.runUntil(() -> qb.recvCq().size() == 50, 1_000_000));
            assertEquals("datagram", qb.receiveBuffer().getString(0));
            f.runFor(1_000_000);
            assertEquals(0, b.counters().txAcks, "no ACKs for UD");
            assertEquals(0, a.counters().txRetransmits);
            assertEquals(0, a.contextCount(), "UD needs no SRD context");
        }
    }

    @Test
    void shouldLoseDatagramsTheNetworkLoses() {
        LinkConfig lossy = LinkConfig.builder().lossProbability(0.2).build();
        try (SimFabric f = new SimFabric(4, lossy, 3)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = udQp(f, a, 0, 0);
            TestQp qb = udQp(f, b, 2000, 8);
            MemorySegment msg = f.arena.allocate(8);
            for (int i = 0; i < 1000; i++) {
                a.post(qa.qp(), send(i, msg, 0, 8).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY));
            }
            f.runFor(5_000_000);
            assertTrue(qa.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
            int got = qb.receives().size();
            assertTrue(got > 700 && got < 900, "about 20% lost and never repaired: " + got);
        }
    }

    @Test
    void shouldDropUndeliverableDatagramsSilently() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = udQp(f, a, 0, 0);
            TestQp noReceives = udQp(f, b, 0, 8);
            TestQp srd = f.qp(b, 10, 8);
            MemorySegment msg = f.arena.allocate(8);
            a.post(qa.qp(), send(1, msg, 0, 8).to(f.ah(a, 1), srd.qpn(), SimFabric.QKEY)); // to an SRD QP
            a.post(qa.qp(), send(2, msg, 0, 8).to(f.ah(a, 1), 4242, SimFabric.QKEY));      // to no QP
            a.post(qa.qp(), send(3, msg, 0, 8).to(f.ah(a, 1), noReceives.qpn(), SimFabric.QKEY));
            a.post(qa.qp(), send(4, msg, 0, 8).to(f.ah(a, 1), noReceives.qpn(), 0xBAD));
            f.runFor(1_000_000);
            assertTrue(qa.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS), "the sender never hears of it");
            assertEquals(0, srd.receives().size());
            assertEquals(4, b.counters().datagramsDropped);
            assertEquals(0, b.counters().txAcks);
        }
    }

    @Test
    void shouldDeliverOnlySendsToAUdQp() {
        try (SimFabric f = new SimFabric(1)) {
            f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp ud = udQp(f, b, 4, 64);
            Attacker x = new Attacker(f);
            x.datagram(1, 0x0B00_0001, PacketType.RDMA_WRITE, ud.qpn(), SimFabric.QKEY, 32);
            x.datagram(1, 0x0B00_0001, PacketType.RDMA_READ, ud.qpn(), SimFabric.QKEY, 24);
            x.settle();
            assertEquals(0, ud.receives().size(), "UD carries sends only: an RDMA operation is no receive");
            assertEquals(2, b.counters().datagramsDropped);
            x.datagram(1, 0x0B00_0001, PacketType.SEND_WITH_IMM, ud.qpn(), SimFabric.QKEY, 16);
            x.settle();
            List<TestQp.Wc> received = ud.receives();
            assertEquals(1, received.size());
            assertEquals(WcStatus.SUCCESS, received.get(0).status());
            assertTrue(received.get(0).hasImm());
        }
    }
}
