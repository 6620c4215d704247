package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.qp.QpTransitions;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.SrcDomain;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Seed 001's verbs extension, object by object: the SRC QP type, the SRC domain, an SRQ's three
 * SRC attributes (all or none), an SRC QP's attributes (RC's, plus a required SRC domain, and no
 * SRQ), and their lifecycle rules.
 */
class SrcObjectsTest {

    private static SimFabric fabric() {
        SimFabric f = new SimFabric(4);
        f.addHost(new TransportConfig());
        f.addHost(new TransportConfig());
        return f;
    }

    @Test
    void shouldGiveEachSrcDomainANumberOfItsOwn() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SrcDomain d1 = t.createSrcDomain();
            SrcDomain d2 = t.createSrcDomain();
            assertNotEquals(d1.number(), d2.number());
        }
    }

    @Test
    void shouldDestroyAnUnusedSrcDomainForGood() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SrcDomain d1 = t.createSrcDomain();
            assertEquals(0, d1.users());
            d1.destroy();
            assertTrue(d1.isDestroyed());
            IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> t.createQp(new TransportQpAttributes(QpType.SRC).sqDepth(16).srcDomain(d1).sendCq(new CompletionQueue(16))));
            assertTrue(e.getMessage().contains("destroyed"), e.getMessage());
        }
    }

    @Test
    void shouldTakeAllThreeSrcAttributesOnAnSrqOrNone() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SrcDomain d = t.createSrcDomain();
            CompletionQueue cq = new CompletionQueue(16);
            SharedReceiveQueue plain = t.createSrq(new SrqAttributes().maxWr(8));
            assertNull(plain.srcDomain());
            assertEquals(0, plain.srcSrqNumber());
            SharedReceiveQueue src = t.createSrq(new SrqAttributes().maxWr(8).pd(3).srcDomain(d).srcSrqNumber(77).srcCq(cq));
            assertSame(d, src.srcDomain());
            assertEquals(77, src.srcSrqNumber());
            assertSame(cq, src.srcCq());
            assertEquals(3, src.pd());
            assertSame(src, t.srcSrq(77), "reachable by its number");
            // Every other combination: refused, saying which are given and which missing.
            SrqAttributes[] partial = {
                new SrqAttributes().maxWr(8).srcDomain(d),
                new SrqAttributes().maxWr(8).srcSrqNumber(78),
                new SrqAttributes().maxWr(8).srcCq(cq),
                new SrqAttributes().maxWr(8).srcDomain(d).srcSrqNumber(78),
                new SrqAttributes().maxWr(8).srcDomain(d).srcCq(cq),
                new SrqAttributes().maxWr(8).srcSrqNumber(78).srcCq(cq),
            };
            for (SrqAttributes a : partial) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.createSrq(a));
                assertTrue(e.getMessage().contains("all three") && e.getMessage().contains("or none") && e.getMessage().contains("missing"),
                    e.getMessage());
            }
            assertEquals(1, d.users(), "the refused ones took nothing");
        }
    }

    @Test
    void shouldRefuseAnSrcSrqNumberInUseOrOutOfRange() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SrcDomain d = t.createSrcDomain();
            CompletionQueue cq = new CompletionQueue(16);
            t.createSrq(new SrqAttributes().maxWr(8).srcDomain(d).srcSrqNumber(5).srcCq(cq));
            IllegalArgumentException taken = assertThrows(IllegalArgumentException.class,
                () -> t.createSrq(new SrqAttributes().maxWr(8).srcDomain(d).srcSrqNumber(5).srcCq(cq)));
            assertTrue(taken.getMessage().contains("already"), taken.getMessage());
            assertThrows(IllegalArgumentException.class,
                () -> t.createSrq(new SrqAttributes().maxWr(8).srcDomain(d).srcSrqNumber(1 << 24).srcCq(cq)));
            assertThrows(IllegalArgumentException.class,
                () -> t.createSrq(new SrqAttributes().maxWr(8).srcDomain(d).srcSrqNumber(-1).srcCq(cq)));
            assertNotEquals(5, t.freeSrcSrqNumber(), "a free number is one no SRQ has");
        }
    }

    /** {@code t} refuses a QP of {@code attributes}, saying each of {@code words}. */
    private static void assertRefused(TransportDevice t, TransportQpAttributes attributes, String... words) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.createQp(attributes));
        for (String word : words) {
            assertTrue(e.getMessage().contains(word), e.getMessage());
        }
    }

    @Test
    void shouldRequireAnSrcDomainOnAnSrcQp() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            CompletionQueue cq = new CompletionQueue(16);
            assertRefused(t, new TransportQpAttributes(QpType.SRC).sqDepth(16).rqDepth(16).sendCq(cq).recvCq(cq), "SRC domain", "required");
            assertRefused(t, new TransportQpAttributes(QpType.SRC).sqDepth(16).srcDomain(null).sendCq(cq), "required");
        }
    }

    @Test
    void shouldRefuseAnSrqOnAnSrcQp() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SrcDomain d = t.createSrcDomain();
            SharedReceiveQueue srq = t.createSrq(8, 0);
            CompletionQueue cq = new CompletionQueue(16);
            assertRefused(t, new TransportQpAttributes(QpType.SRC).sqDepth(16).srcDomain(d).srq(srq).sendCq(cq).recvCq(cq), "no SRQ");
            assertEquals(0, d.users(), "no QP was made");
        }
    }

    @Test
    void shouldRefuseSrcObjectsOnAnRcQp() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            CompletionQueue cq = new CompletionQueue(16);
            SrcDomain d = t.createSrcDomain();
            assertRefused(t, new TransportQpAttributes(QpType.RC).sqDepth(16).srcDomain(d).sendCq(cq), "only SRC");
            SharedReceiveQueue srcSrq = t.createSrq(new SrqAttributes().maxWr(8).srcDomain(d).srcSrqNumber(9).srcCq(cq));
            assertRefused(t, new TransportQpAttributes(QpType.RC).sqDepth(16).srq(srcSrq).sendCq(cq).recvCq(cq), "SRC");
            assertEquals(1, d.users(), "the SRQ only: no QP was made");
        }
    }

    @Test
    void shouldGiveAnSrcQpTheAttributesAndStateMachineOfAnRcQp() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SrcDomain d = t.createSrcDomain();
            DeviceQp qp = t.createQp(new TransportQpAttributes(QpType.SRC).sqDepth(16).srcDomain(d).sendCq(new CompletionQueue(16)));
            assertEquals(QpType.SRC, qp.type());
            assertSame(d, qp.srcDomain());
            assertEquals(QpTransitions.attributesOf(QpType.RC), QpTransitions.attributesOf(QpType.SRC));
            for (QpState from : QpState.values()) {
                for (QpState to : QpState.values()) {
                    assertEquals(QpTransitions.required(QpType.RC, from, to), QpTransitions.required(QpType.SRC, from, to));
                    assertEquals(QpTransitions.optional(QpType.RC, from, to), QpTransitions.optional(QpType.SRC, from, to));
                }
            }
            IllegalArgumentException noQkey = assertThrows(IllegalArgumentException.class,
                () -> qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).qkey(1)));
            assertTrue(noQkey.getMessage().contains("SRC QP"), noQkey.getMessage());
            SrcPair.connect(f, qp, t, 1, 0x77, 1, 2, 0, 7, 7);
            assertEquals(QpState.RTS, qp.state());
            assertEquals(QpTransitions.attributesOf(QpType.RC), qp.query(new QpAttributes()).mask() & ~QpAttributes.STATE);
            IllegalStateException recv = assertThrows(IllegalStateException.class,
                () -> qp.postReceive(1, f.arena.allocate(64), 0, 64));
            assertTrue(recv.getMessage().contains("SRQ"), recv.getMessage());
        }
    }

    @Test
    void shouldRefuseToDestroyAnSrcDomainStillInUseBySrqsOrQps() {
        try (SimFabric f = fabric()) {
            TransportDevice t = f.host(0);
            SrcDomain d = t.createSrcDomain();
            CompletionQueue cq = new CompletionQueue(16);
            SharedReceiveQueue srq = t.createSrq(new SrqAttributes().maxWr(8).srcDomain(d).srcSrqNumber(11).srcCq(cq));
            DeviceQp qp = t.createQp(new TransportQpAttributes(QpType.SRC).sqDepth(16).srcDomain(d).sendCq(cq));
            assertEquals(2, d.users());
            IllegalStateException e = assertThrows(IllegalStateException.class, d::destroy);
            assertTrue(e.getMessage().contains("1 SRQ") && e.getMessage().contains("1 QP"), e.getMessage());
            qp.destroy();
            assertThrows(IllegalStateException.class, d::destroy);
            srq.destroy();
            assertNull(t.srcSrq(11), "a destroyed SRQ's number reaches nothing");
            d.destroy();
            assertTrue(d.isDestroyed());
        }
    }

    @Test
    void shouldRefusePostsOnAnSrcQpThatNameNoRemoteSrq() {
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 3, 1).connect()) {
            MemorySegment buf = p.f.arena.allocate(64);
            int send = SendOpcode.SEND;
            assertEquals(TransportDevice.POST_INVALID, p.a.post(p.qa.qp(), request(1, send, buf, 0, 8)),
                "a plain post carries no SRQ number");
            assertEquals(TransportDevice.POST_INVALID, p.post(0, send, 1, buf, 0, 8, 0, 0, 0), "0 names no SRQ");
            assertEquals(TransportDevice.POST_INVALID, p.post(1 << 24, send, 1, buf, 0, 8, 0, 0, 0), "SRQ numbers have 24 bits");
            assertEquals(0, p.qa.qp().sendsOutstanding());
        }
    }
}
