package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * An RC QP taken through RESET → INIT → RTR → RTS on a real transport: what each move requires, the
 * values it refuses, and what the QP keeps for RC's data path.
 */
class RcQpAttributesTest {

    private static QpAttributes init() {
        return new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
            .accessFlags(QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ);
    }

    private static QpAttributes rtr(int ah) {
        return new QpAttributes().state(QpState.RTR).addressHandle(ah).pathMtu(2048).destQpn(0x00AB_CDEF).rqPsn(0x12_3456)
            .maxDestRdAtomic(4).minRnrTimer(12);
    }

    private static QpAttributes rts() {
        return new QpAttributes().state(QpState.RTS).sqPsn(0x65_4321).timeout(14).retryCnt(6).rnrRetry(7).maxRdAtomic(2);
    }

    private static DeviceQp rcQp(TransportDevice t) {
        return t.createQp(new TransportQpAttributes(QpType.RC).sqDepth(4).rqDepth(4).sendCq(new CompletionQueue(8))
            .recvCq(new CompletionQueue(8)));
    }

    /** An RC QP taken to RTS with the attributes above, its path {@code ah}. */
    private static DeviceQp rcQpInRts(TransportDevice t, int ah) {
        DeviceQp qp = rcQp(t);
        qp.modify(init());
        qp.modify(rtr(ah));
        qp.modify(rts());
        return qp;
    }

    private static void refuses(DeviceQp qp, QpAttributes attributes, String... named) {
        QpState before = qp.state();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> qp.modify(attributes));
        for (String name : named) {
            assertTrue(e.getMessage().contains(name), "the message names " + name + ": " + e.getMessage());
        }
        assertEquals(before, qp.state(), "a refused modify changes nothing");
    }

    @Test
    void shouldTakeAnRcQpToRtsWithTheAttributesEachMoveRequires() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            DeviceQp qp = rcQp(a);
            int ah = f.ah(a, 1);

            refuses(qp, new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1), "missing accessFlags");
            refuses(qp, init().qkey(1), "does not take qkey");
            qp.modify(init());
            assertEquals(QpState.INIT, qp.state());

            refuses(qp, new QpAttributes().state(QpState.RTR), "destQpn", "rqPsn", "addressHandle", "pathMtu", "maxDestRdAtomic",
                "minRnrTimer");
            refuses(qp, rtr(ah).sqPsn(1), "does not take sqPsn");
            refuses(qp, rtr(ah).timeout(14), "does not take timeout");
            qp.modify(rtr(ah));

            refuses(qp, new QpAttributes().state(QpState.RTS), "sqPsn", "timeout", "retryCnt", "rnrRetry", "maxRdAtomic");
            refuses(qp, rts().destQpn(1), "does not take destQpn");
            refuses(qp, rts().pathMtu(1024), "does not take pathMtu");
            qp.modify(rts());
            assertEquals(QpState.RTS, qp.state());

            assertEquals(0x00AB_CDEF, qp.destQpn);
            assertEquals(0x12_3456, qp.rqPsn);
            assertEquals(0x65_4321, qp.sqPsn);
            assertEquals(ah, qp.addressHandle);
            assertEquals(2048, qp.pathMtu);
            assertEquals(14, qp.timeout);
            assertEquals(6, qp.retryCnt);
            assertEquals(7, qp.rnrRetry);
            assertEquals(12, qp.minRnrTimer);
            assertEquals(2, qp.maxRdAtomic);
            assertEquals(4, qp.maxDestRdAtomic);
            assertEquals(QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ, qp.accessFlags);
        }
    }

    @Test
    void shouldQueryWhatTheQpKeeps() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            int ah = f.ah(a, 1);
            DeviceQp qp = rcQpInRts(a, ah);
            qp.modify(new QpAttributes().minRnrTimer(3).accessFlags(0)); // RTS -> RTS: no state set
            QpAttributes q = qp.query(new QpAttributes());
            assertEquals(QpState.RTS, q.state());
            assertEquals(0x00AB_CDEF, q.destQpn());
            assertEquals(0x12_3456, q.rqPsn());
            assertEquals(0x65_4321, q.sqPsn());
            assertEquals(ah, q.addressHandle());
            assertEquals(2048, q.pathMtu());
            assertEquals(3, q.minRnrTimer());
            assertEquals(0, q.accessFlags());
            assertEquals(1, q.port());
            assertFalse(q.has(QpAttributes.QKEY), "an RC QP has no Q_Key");
            assertFalse(q.sqDraining());
        }
    }

    @Test
    void shouldRefuseValuesOutOfRangeNamingTheAttribute() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig().mtu(2048));
            f.addHost(new TransportConfig());
            DeviceQp qp = rcQp(a);
            int ah = f.ah(a, 1);
            refuses(qp, init().port(2), "port", "one port");
            refuses(qp, init().pkeyIndex(1), "pkeyIndex");
            refuses(qp, init().accessFlags(1), "accessFlags", "ACCESS_REMOTE_WRITE");
            qp.modify(init());
            refuses(qp, rtr(ah).pathMtu(1500), "pathMtu", "256, 512, 1024, 2048, 4096", "1500");
            refuses(qp, rtr(ah).pathMtu(4096), "pathMtu", "device MTU 2048");
            refuses(qp, rtr(ah).addressHandle(ah + 100), "addressHandle", "create one");
            refuses(qp, rtr(ah).minRnrTimer(32), "minRnrTimer", "0..31");
            refuses(qp, rtr(ah).destQpn(1 << 24), "destQpn", "24 bits");
            refuses(qp, rtr(ah).rqPsn(-1), "rqPsn", "24 bits");
            refuses(qp, rtr(ah).maxDestRdAtomic(QpAttributes.RD_ATOMIC_LIMIT + 1), "maxDestRdAtomic");
            qp.modify(rtr(ah).pathMtu(2048));
            refuses(qp, rts().retryCnt(8), "retryCnt", "0..7", "was 8");
            refuses(qp, rts().rnrRetry(-1), "rnrRetry", "0..7");
            refuses(qp, rts().timeout(32), "timeout", "0..31");
            refuses(qp, rts().maxRdAtomic(-1), "maxRdAtomic");
            qp.modify(rts());
        }
    }

    @Test
    void shouldTakePostsOnRcOnlyInRts() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            int ah = f.ah(a, 1);
            DeviceQp qp = rcQp(a);
            qp.modify(init());
            qp.modify(rtr(ah));
            MemorySegment buf = f.arena.allocate(8);
            assertEquals(TransportDevice.POST_BAD_QP_STATE, a.post(qp, send(1, buf, 0, 8).to(ah, 1, 0)), "RTR only receives");
            assertEquals(0, qp.sendsOutstanding());
            qp.modify(rts());
            assertEquals(TransportDevice.POST_OK, a.post(qp, send(1, buf, 0, 8).to(ah, 1, 0)));
            assertEquals(1, qp.sendsOutstanding());
            assertTrue(qp.postReceive(1, buf, 0, 8), "its receive queue takes receives, as any QP's from INIT on");
        }
    }

    @Test
    void shouldKeepTheShortModifyForDatagramQps() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            for (QpType type : new QpType[] {QpType.SRD, QpType.UD}) {
                DeviceQp qp = a.createQp(new TransportQpAttributes(type).sqDepth(4).rqDepth(4).sendCq(new CompletionQueue(8))
                    .recvCq(new CompletionQueue(8)));
                qp.modify(QpState.INIT, 0x77);
                qp.modify(QpState.RTR, 0);
                qp.modify(QpState.RTS, 0);
                assertEquals(QpState.RTS, qp.state());
                assertEquals(0x77, qp.qkey());
            }
        }
    }

    @Test
    void shouldPointAnRcQpsShortModifyToTheAttributesItMisses() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            f.addHost(new TransportConfig());
            DeviceQp rc = rcQp(a);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rc.modify(QpState.INIT, 1));
            assertTrue(e.getMessage().contains("missing"), e.getMessage());
            assertEquals(QpState.RESET, rc.state(), "the refused modify changed nothing");
        }
    }
}
