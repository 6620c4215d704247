package io.srdnic.srd.transport.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.SrcDomain;
import org.junit.jupiter.api.Test;

/**
 * {@link TransportDevice#createQp(TransportQpAttributes)}: one attributes object makes every QP shape
 * (own receive queue, an SRQ's receives, SRC in its domain), and refuses the combinations a QP type
 * cannot take.
 */
class TransportQpAttributesTest {

    private static SimFabric fabric() {
        SimFabric f = new SimFabric(4);
        f.addHost(new TransportConfig());
        return f;
    }

    @Test
    void shouldCreateAQpWithItsOwnQueuesInItsProtectionDomain() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            CompletionQueue send = new CompletionQueue(8);
            CompletionQueue recv = new CompletionQueue(8);
            DeviceQp qp = t.createQp(new TransportQpAttributes(QpType.RC).pd(3).sqDepth(5).rqDepth(7).sendCq(send).recvCq(recv));
            assertEquals(QpType.RC, qp.type);
            assertEquals(3, qp.pd);
            assertEquals(5, qp.sqDepth);
            assertSame(send, qp.sendCq);
            assertSame(recv, qp.recvCq);
            assertNull(qp.srq);
            assertSame(qp, t.qp(qp.qpn()));
        }
    }

    @Test
    void shouldTakeReceivesFromTheSharedReceiveQueueNamed() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SharedReceiveQueue srq = t.createSrq(new SrqAttributes().maxWr(8));
            DeviceQp qp = t.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(4).srq(srq).sendCq(new CompletionQueue(8))
                .recvCq(new CompletionQueue(8)));
            assertSame(srq, qp.srq);
        }
    }

    @Test
    void shouldPutAnSrcQpInItsDomain() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SrcDomain d = t.createSrcDomain();
            DeviceQp qp = t.createQp(new TransportQpAttributes(QpType.SRC).pd(2).sqDepth(4).srcDomain(d).sendCq(new CompletionQueue(8)));
            assertEquals(QpType.SRC, qp.type);
            assertSame(d, qp.srcDomain);
            assertEquals(1, d.users());
        }
    }

    @Test
    void shouldRefuseAnSrcQpWithoutItsDomain() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> t.createQp(new TransportQpAttributes(QpType.SRC).sendCq(new CompletionQueue(8))));
            assertTrue(e.getMessage().contains("SRC domain"), e.getMessage());
        }
    }

    @Test
    void shouldRefuseAnSrcDomainOnAnotherType() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SrcDomain d = t.createSrcDomain();
            assertThrows(IllegalArgumentException.class,
                () -> t.createQp(new TransportQpAttributes(QpType.RC).srcDomain(d).sendCq(new CompletionQueue(8))));
        }
    }

    @Test
    void shouldRefuseAnSrqOnAnSrcQp() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SharedReceiveQueue srq = t.createSrq(new SrqAttributes().maxWr(8));
            assertThrows(IllegalArgumentException.class,
                () -> t.createQp(new TransportQpAttributes(QpType.SRC).srq(srq).sendCq(new CompletionQueue(8))));
        }
    }
}
