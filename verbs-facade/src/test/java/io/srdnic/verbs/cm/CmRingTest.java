package io.srdnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.srd.transport.QpState;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.ThreadingMode;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The CM on real DPDK (a net_ring pair) with DEDICATED dataplanes: the management QP's posts go to
 * each agent thread as commands while the test thread runs both CMs — the path a simulator never takes.
 */
class CmRingTest {

    @Test
    void shouldConnectAndDisconnectWithDedicatedDataplanes() {
        Eal.startOrGet(new EalConfig());
        try (RingLink link = RingLink.create(1024); MbufPool pool = MbufPool.create("cmring", 8191, 4096 + 256);
             Arena arena = Arena.ofShared()) {
            link.a().configure(PortConfig.DEFAULT, pool).start();
            link.b().configure(PortConfig.DEFAULT, pool).start();
            try (Context a = Context.open(Device.dpdk(link.a(), pool), new ContextConfig().mode(ThreadingMode.DEDICATED).ip(0x0A000001));
                 Context b = Context.open(Device.dpdk(link.b(), pool), new ContextConfig().mode(ThreadingMode.DEDICATED).ip(0x0A000002))) {
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
                QueuePair qpa = client.createQp(pa, qa, qa, 8, 8, 1, 0);
                client.connect(new ConnParam().privateData(new byte[] {1, 2, 3}));
                CmEvent req = expect(cb, CmEventType.CONNECT_REQUEST);
                assertEquals(3, req.privateDataLength());
                CmId server = req.id();
                ProtectionDomain pb = b.allocPd();
                CompletionQueue qb = b.createCq(16);
                MemoryRegion mr = pb.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE);
                QueuePair qpb = server.createQp(pb, qb, qb, 8, 8, 1, 0);
                io.srdnic.verbs.RecvWr r = new io.srdnic.verbs.RecvWr().wrId(1);
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
            }
        }
    }

    private static CmEvent expect(EventChannel ch, CmEventType type) {
        CmEvent e = ch.await(5, TimeUnit.SECONDS);
        assertNotNull(e, "no " + type + " within 5 s");
        assertEquals(type, e.type(), e.toString());
        ch.ack(e);
        return e;
    }
}
