package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MS;
import static io.srdnic.srd.transport.device.Requests.request;
import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.SrcDomain;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seed 001's responder errors and issue 10's lifecycle rules: an SRQ number that names no SRQ, an
 * SRQ of another SRC domain, an SRQ destroyed while messages still name it, and an SRC QP in
 * ERROR, which flushes its own send WRs and nothing of the SRQs it delivered to.
 */
class SrcFailureTest {

    private static void failsBothEndsWith(SrcPair p, int srqn, int requesterStatus, int nakReason) {
        MemorySegment tx = p.random(1, 4096, 5);
        assertEquals(TransportDevice.POST_OK, p.post(srqn, SendOpcode.SEND, 1, tx, 0, 3000, 0, 0, 0));
        assertEquals(TransportDevice.POST_OK, p.post(SrcPair.SRQN, SendOpcode.SEND, 2, tx, 0, 10, 0, 0, 0));
        List<TestQp.Wc> wcs = p.sendCompletions(2, 2_000 * MS);
        assertEquals(requesterStatus, wcs.get(0).status());
        assertEquals(WcStatus.WR_FLUSH_ERROR, wcs.get(1).status(), "the rest flushed");
        assertTrue(p.b.counters().dropsSent[nakReason] > 0, "the responder NAKed it");
        assertEquals(QpState.ERROR, p.qa.qp().state());
        assertEquals(QpState.ERROR, p.qb.qp().state(), "the SRC QP moves to ERROR");
        p.f.runFor(10 * MS);
        assertEquals(List.of(), p.srqCompletions(0), "nothing delivered, nothing flushed on the SRQ");
        assertEquals(4, p.srqs[0].receivesPosted(), "the SRQ's receives stay for others");
    }

    @Test
    void shouldNakAnSrqNumberThatNamesNoSrqAsAnInvalidRequest() {
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 51, 1).connect()) {
            p.receives(0, 4, 4096);
            failsBothEndsWith(p, SrcPair.SRQN + 99, WcStatus.REMOTE_INVALID_REQUEST_ERROR, DropReason.REMOTE_INVALID_REQUEST);
        }
    }

    @Test
    void shouldNakAnSrqOfAnotherSrcDomain() {
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 52, 1).connect()) {
            p.receives(0, 4, 4096);
            SrcDomain other = p.b.createSrcDomain();
            SharedReceiveQueue foreign = p.b.createSrq(new SrqAttributes().maxWr(8).pd(1).srcDomain(other).srcSrqNumber(0x900)
                .srcCq(new CompletionQueue(16)));
            foreign.postReceive(1, p.f.arena.allocate(4096), 0, 4096);
            failsBothEndsWith(p, 0x900, WcStatus.REMOTE_INVALID_REQUEST_ERROR, DropReason.REMOTE_INVALID_REQUEST);
            assertEquals(1, foreign.receivesPosted(), "the other domain's SRQ gave nothing");
        }
    }

    @Test
    void shouldFailMessagesToAnSrqDestroyedMeanwhileWithARemoteError() {
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 53, 2).connect()) {
            p.receives(0, 4, 4096);
            MemorySegment tx = p.random(1, 64, 53);
            p.receives(1, 1, 64);
            assertEquals(TransportDevice.POST_OK, p.post(SrcPair.SRQN + 1, SendOpcode.SEND, 0, tx, 0, 64, 0, 0, 0));
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 100 * MS).get(0).status());
            p.srqs[1].destroy();
            failsBothEndsWith(p, SrcPair.SRQN + 1, WcStatus.REMOTE_INVALID_REQUEST_ERROR, DropReason.REMOTE_INVALID_REQUEST);
        }
    }

    /**
     * Two SRC QPs of host a reach two SRC QPs of host b that share one SRQ: one of b's goes to
     * ERROR (a message to an unknown SRQ number); its own sends are flushed, the SRQ's receives are
     * not, and the other connection goes on delivering into them.
     */
    @Test
    void shouldFlushOnlyItsOwnSendsWhenAnSrcQpFails() {
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 54, 1)) {
            p.connect();
            TestQp qa2 = SrcPair.srcQp(p.a, p.da);
            TestQp qb2 = SrcPair.srcQp(p.b, p.db);
            SrcPair.connect(p.f, qa2.qp(), p.a, 1, qb2.qpn(), 7000, 9000, p.access, 7, 7);
            SrcPair.connect(p.f, qb2.qp(), p.b, 0, qa2.qpn(), 9000, 7000, p.access, 7, 7);
            MemorySegment rx = p.receives(0, 4, 4096);
            MemorySegment tx = p.random(1, 4096, 54);
            // b's first QP has sends of its own queued when it fails: a READ of a's memory it cannot finish.
            MemorySegment remote = p.f.arena.allocate(4096, 64);
            int rkey = p.a.regions().register(remote, 0, MemoryRegions.REMOTE_READ);
            DeviceQp failing = p.qb.qp();
            assertEquals(TransportDevice.POST_OK, p.b.post(failing, request(70, SendOpcode.RDMA_READ, p.f.arena.allocate(4096), 0, 4096)
                .remote(remote.address(), rkey).remoteSrqn(0x7777)));
            failing.modify(new QpAttributes().state(QpState.ERROR));
            List<TestQp.Wc> own = p.qb.sends();
            assertEquals(1, own.size());
            assertEquals(70, own.get(0).wrId());
            assertEquals(WcStatus.WR_FLUSH_ERROR, own.get(0).status(), "its own send WR flushed");
            assertEquals(4, p.srqs[0].receivesPosted(), "the SRQ's receives are not its to flush");
            assertEquals(List.of(), p.srqCompletions(0));
            assertEquals(TransportDevice.POST_OK, p.a.post(qa2.qp(), send(1, tx, 0, 100).remoteSrqn(SrcPair.SRQN)));
            assertTrue(p.f.runUntil(() -> qa2.sendCq().size() > 0, 100 * MS));
            assertEquals(WcStatus.SUCCESS, qa2.sends().get(0).status());
            p.f.runFor(MS);
            List<TestQp.Wc> delivered = p.srqCompletions(0);
            assertEquals(1, delivered.size(), "the other SRC QP still delivers into the shared SRQ");
            assertEquals(qb2.qpn(), delivered.get(0).qpn());
            assertEquals(3, p.srqs[0].receivesPosted());
            assertTrue(rx.byteSize() > 0);
        }
    }

    /** A message's packets all name its SRQ: a LAST naming another SRQ than its FIRST is a broken message sequence. */
    @Test
    void shouldNakAPacketThatNamesAnotherSrqThanItsMessagesFirst() {
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 57, 2).connect()) {
            p.receives(0, 2, 4096);
            p.receives(1, 2, 4096);
            Attacker x = new Attacker(p.f);
            int peerIp = SimFabric.ip(0);
            x.srcSend(1, peerIp, p.qa.qpn(), p.qb.qpn(), 5000, 0, SrdHeader.FLAG_FIRST, SrcPair.SRQN, 100);
            x.srcSend(1, peerIp, p.qa.qpn(), p.qb.qpn(), 5001, 0, SrdHeader.FLAG_LAST, SrcPair.SRQN + 1, 100);
            p.f.runFor(MS);
            assertEquals(1, p.b.counters().dropsSent[DropReason.REMOTE_INVALID_REQUEST]);
            assertEquals(QpState.ERROR, p.qb.qp().state());
            List<TestQp.Wc> flushed = p.srqCompletions(0);
            assertEquals(1, flushed.size(), "the receive its FIRST took ends, flushed, on its SRQ's CQ");
            assertEquals(WcStatus.WR_FLUSH_ERROR, flushed.get(0).status());
            assertEquals(List.of(), p.srqCompletions(1));
            assertEquals(2, p.srqs[1].receivesPosted());
        }
    }

    @Test
    void shouldRefusePacketsOfTheOtherConnectedQpType() {
        // An RC requester connected to an SRC QP: its packets name no SRQ, so the SRC responder refuses them.
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 55, 1)) {
            p.receives(0, 4, 4096);
            CompletionQueue cq = new CompletionQueue(64);
            DeviceQp rc = p.a.createQp(new TransportQpAttributes(QpType.RC).sqDepth(16).rqDepth(16).sendCq(cq).recvCq(cq));
            SrcPair.connect(p.f, rc, p.a, 1, p.qb.qpn(), 1000, 5000, p.access, 7, 7);
            SrcPair.connect(p.f, p.qb.qp(), p.b, 0, rc.qpn(), 5000, 1000, p.access, 7, 7);
            MemorySegment tx = p.random(1, 64, 55);
            assertEquals(TransportDevice.POST_OK, p.a.post(rc, send(1, tx, 0, 64)));
            assertTrue(p.f.runUntil(() -> cq.size() > 0, 100 * MS));
            assertEquals(WcStatus.REMOTE_INVALID_REQUEST_ERROR, new TestQp(rc, cq, cq, null).sends().get(0).status());
            assertEquals(4, p.srqs[0].receivesPosted());
        }
        // And the other way round: an SRC requester connected to an RC QP.
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 56, 1)) {
            CompletionQueue cq = new CompletionQueue(64);
            DeviceQp rc = p.b.createQp(new TransportQpAttributes(QpType.RC).sqDepth(16).rqDepth(16).sendCq(cq).recvCq(cq));
            SrcPair.connect(p.f, p.qa.qp(), p.a, 1, rc.qpn(), 1000, 5000, p.access, 7, 7);
            SrcPair.connect(p.f, rc, p.b, 0, p.qa.qpn(), 5000, 1000, p.access, 7, 7);
            rc.postReceive(1, p.f.arena.allocate(64), 0, 64);
            MemorySegment tx = p.random(1, 64, 56);
            assertEquals(TransportDevice.POST_OK, p.post(SrcPair.SRQN, SendOpcode.SEND, 1, tx, 0, 64, 0, 0, 0));
            assertEquals(WcStatus.REMOTE_INVALID_REQUEST_ERROR, p.sendCompletions(1, 100 * MS).get(0).status());
            assertEquals(0, p.b.counters().delivered, "the RC QP delivered nothing");
            assertEquals(QpState.ERROR, rc.state());
        }
    }
}
