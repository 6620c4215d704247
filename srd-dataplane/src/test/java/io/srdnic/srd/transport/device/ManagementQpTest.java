package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** The management QP: UD at the well-known QPN 1 on every device, which no drawn number ever takes. */
class ManagementQpTest {

    @Test
    void shouldReachThePeersManagementQpWithoutBeingToldItsNumber() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = UdDatagramTest.udQp(f, a, 0, 0);
            CompletionQueue rcq = new CompletionQueue(64);
            DeviceQp management = b.createManagementQp(0, 16, 16, new CompletionQueue(64), rcq);
            assertEquals(TransportDevice.MANAGEMENT_QPN, management.qpn());
            management.modify(QpState.INIT, SimFabric.QKEY);
            MemorySegment buffer = f.arena.allocate(64);
            management.postReceive(7, buffer, 0, 64);
            management.modify(QpState.RTR, 0);
            MemorySegment msg = f.arena.allocateFrom("hello QP1");
            a.post(qa.qp(), send(1, msg, 0, 10).to(f.ah(a, 1), TransportDevice.MANAGEMENT_QPN, SimFabric.QKEY));
            assertTrue(f.runUntil(() -> rcq.size() == 1, 1_000_000));
            assertEquals("hello QP1", buffer.getString(0));
        }
    }

    @Test
    void shouldRefuseASecondManagementQp() {
        try (SimFabric f = new SimFabric(1)) {
            TransportConfig small = new TransportConfig().maxQps(4);
            TransportDevice a = f.addHost(small);
            a.createManagementQp(0, 1, 1, new CompletionQueue(4), new CompletionQueue(4));
            assertThrows(IllegalStateException.class, () -> a.createManagementQp(0, 1, 1, new CompletionQueue(4), new CompletionQueue(4)));
            for (int round = 0; round < 50; round++) {
                DeviceQp[] qps = new DeviceQp[4];
                for (int i = 0; i < 4; i++) {
                    qps[i] = a.createQp(new TransportQpAttributes(QpType.UD).sqDepth(1).sendCq(new CompletionQueue(4))
                        .recvCq(new CompletionQueue(4)));
                    assertNotEquals(TransportDevice.MANAGEMENT_QPN, qps[i].qpn());
                    assertNotEquals(1, qps[i].qpn() & a.qpIndexMask(), "index 1 is the management QP's");
                }
                assertThrows(IllegalStateException.class, () -> a.createQp(new TransportQpAttributes(QpType.UD).sqDepth(1)
                    .sendCq(new CompletionQueue(4)).recvCq(new CompletionQueue(4))),
                    "maxQps counts the drawn QPs only");
                for (DeviceQp qp : qps) {
                    qp.destroy();
                }
            }
            assertEquals(TransportDevice.MANAGEMENT_QPN, a.qp(TransportDevice.MANAGEMENT_QPN).qpn());
        }
    }
}
