package io.srdnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.SharedReceiveQueue;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.XrcDomain;
import io.srdnic.verbs.XrcQpType;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The CM on real DPDK (a net_ring pair) with DEDICATED dataplanes: the management QP's posts go to
 * each agent thread as commands while the test thread runs both CMs — the path a simulator never takes.
 */
class CmRingTest {

    /** What a test does with two DEDICATED contexts on the two ends of a net_ring pair. */
    interface OnRing {
        void run(Context a, Context b, Arena arena);
    }

    private static void onRing(String pool, OnRing test) {
        Eal.startOrGet(new EalConfig());
        try (RingLink link = RingLink.create(1024); MbufPool mbufs = MbufPool.create(pool, 8191, 4096 + 256);
             Arena arena = Arena.ofShared()) {
            link.a().configure(PortConfig.DEFAULT, mbufs).start();
            link.b().configure(PortConfig.DEFAULT, mbufs).start();
            try (Context a = Context.open(Device.dpdk(link.a(), mbufs), new ContextConfig().mode(ThreadingMode.DEDICATED).ip(0x0A000001));
                 Context b = Context.open(Device.dpdk(link.b(), mbufs), new ContextConfig().mode(ThreadingMode.DEDICATED).ip(0x0A000002))) {
                test.run(a, b, arena);
            }
        }
    }

    @Test
    void shouldRunAConnectionsWholeLifeWithDedicatedDataplanes() {
        onRing("cmring", (a, b, arena) -> {
            EventChannel ca = new EventChannel();
            EventChannel cb = new EventChannel();
            CmId listener = CmId.create(cb, b);
            listener.bind(7000);
            listener.listen(1);
            CmId client = CmId.create(ca, a);
            client.resolveAddr(b.ip(), 7000);
            expect(ca, CmEventType.ADDR_RESOLVED);
            client.resolveRoute();
            expect(ca, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain pa = a.allocPd();
            CompletionQueue qa = a.createCq(16);
            QueuePair qpa = client.createQp(pa, QpInitAttributes.builder(QpType.RC).cq(qa).maxSendWr(8).maxRecvWr(8).build());
            client.connect(new ConnParam().privateData(new byte[] {1, 2, 3}));
            CmEvent req = expect(cb, CmEventType.CONNECT_REQUEST);
            assertEquals(3, req.privateDataLength());
            CmId server = req.id();
            ProtectionDomain pb = b.allocPd();
            CompletionQueue qb = b.createCq(16);
            MemoryRegion mr = pb.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE);
            QueuePair qpb = server.createQp(pb, QpInitAttributes.builder(QpType.RC).cq(qb).maxSendWr(8).maxRecvWr(8).build());
            RecvWr r = new RecvWr().wrId(1);
            r.sge().set(mr, 0, 4096);
            assertEquals(0, qpb.postRecv(r), "the QP is in INIT already: receives go in before the connection is up");
            server.accept(new ConnParam());
            expect(ca, CmEventType.ESTABLISHED);
            expect(cb, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, qpa.state());
            assertEquals(QpState.RTS, qpb.state());
            client.disconnect();
            expect(cb, CmEventType.DISCONNECTED);
            expect(ca, CmEventType.DISCONNECTED);
            expect(ca, CmEventType.TIMEWAIT_EXIT);
            expect(cb, CmEventType.TIMEWAIT_EXIT);
            qpa.destroy();
            qpb.destroy();
            client.destroy();
            server.destroy();
            listener.destroy();
            mr.deregister();
        });
    }

    /**
     * XRC through the CM on real DPDK: an XRC_SEND QP to an XRC_RECV QP, the SRQ number in the
     * accept's private data, a message into that SRQ.
     */
    @Test
    void shouldDeliverIntoTheSrqTheXrcAcceptNamed() {
        onRing("cmringxrc", (a, b, arena) -> {
            EventChannel ca = new EventChannel();
            EventChannel cb = new EventChannel();
            XrcDomain xrcd = b.openXrcDomain();
            ProtectionDomain pb = b.allocPd();
            CompletionQueue qb = b.createCq(16);
            MemoryRegion mr = pb.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE);
            SharedReceiveQueue srq = pb.createXrcSrq(xrcd, qb, 4, 1, 0);
            RecvWr r = new RecvWr().wrId(9);
            r.sge().set(mr, 0, 4096);
            srq.postSrqRecv(r);
            CmId listener = CmId.create(cb, b, XrcQpType.XRC_RECV);
            listener.bind(7001);
            listener.listen(1);
            CmId client = CmId.create(ca, a, XrcQpType.XRC_SEND);
            client.resolveAddr(b.ip(), 7001);
            expect(ca, CmEventType.ADDR_RESOLVED);
            client.resolveRoute();
            expect(ca, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain pa = a.allocPd();
            CompletionQueue qa = a.createCq(16);
            MemoryRegion source = pa.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE);
            client.attachQp(pa.createQueuePair(QpInitAttributes.xrcSend(qa).maxSendWr(8).build()));
            client.connect(new ConnParam());
            CmId server = expect(cb, CmEventType.CONNECT_REQUEST).id();
            QueuePair target = xrcd.createRecvQueuePair();
            server.attachQp(target);
            server.accept(new ConnParam().privateData(ByteBuffer.allocate(4).putInt(srq.srqNumber()).array()));
            CmEvent up = expect(ca, CmEventType.ESTABLISHED);
            int srqn = ByteBuffer.wrap(up.privateData(), 0, 4).getInt();
            expect(cb, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, client.qp().state());
            assertEquals(QpState.RTS, target.state());
            SendWr send = new SendWr().wrId(1).opcode(SendWr.OP_SEND).remoteSrqn(srqn).numSge(1);
            send.sge(0).set(source, 0, 300);
            assertEquals(0, client.qp().postSend(send));
            WorkCompletion[] wcs = CompletionQueue.array(1);
            assertEquals(1, qb.await(wcs, 5_000, TimeUnit.MILLISECONDS), "the message in the SRQ the accept named, on its CQ");
            assertTrue(wcs[0].ok(), wcs[0].toString());
            assertEquals(9, wcs[0].wrId());
            assertEquals(300, wcs[0].byteLength());
            client.disconnect();
            expect(cb, CmEventType.DISCONNECTED);
            expect(ca, CmEventType.DISCONNECTED);
            client.qp().destroy();
            target.destroy();
            client.destroy();
            server.destroy();
            listener.destroy();
        });
    }

    private static CmEvent expect(EventChannel ch, CmEventType type) {
        CmEvent e = ch.await(5, TimeUnit.SECONDS);
        assertNotNull(e, "no " + type + " within 5 s");
        assertEquals(type, e.type(), e.toString());
        ch.ack(e);
        return e;
    }
}
