package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MIB;
import static io.srdnic.srd.transport.device.RcPair.MS;
import static io.srdnic.srd.transport.device.RcPair.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.qp.LocalAckTimeout;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.RcInternals;
import io.srdnic.srd.wire.DropReason;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * How an RC connection fails, as verbs says it must: RNR NAKs retried (for ever with rnr_retry 7)
 * until a receive is posted, or RNR_RETRY_EXCEEDED; a silent peer is RETRY_EXCEEDED after retry_cnt
 * and the local ACK timeout; a remote access violation is REMOTE_ACCESS_ERROR and changes nothing.
 * Each failure completes the request that met it, flushes every later one and puts the QP in ERROR.
 */
class RcFailureTest {

    @Test
    void shouldRetryAnRnrNakForEverUntilAReceiveIsPosted() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 31)) {
            p.rnrRetry = 7;
            p.minRnrTimer = 1; // 10 us
            p.connect();
            MemorySegment tx = p.random(3000, 31);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 1, tx, 0, 3000, 0, 0, 0));
            p.f.runFor(20 * MS); // 2000 timer periods: far past any finite count
            assertEquals(List.of(), p.qa.sends(), "still waiting, not failed");
            assertTrue(p.b.counters().dropsSent[DropReason.RNR] > 100, "RNR NAKed again and again");
            assertEquals(QpState.RTS, p.qa.qp().state());
            MemorySegment rx = p.receives(1, 4096);
            TestQp.Wc wc = p.sendCompletions(1, 10 * MS).get(0);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertArrayEquals(bytes(tx, 0, 3000), bytes(rx, 0, 3000));
            assertEquals(1, p.qb.receives().size());
        }
    }

    @Test
    void shouldHoldEveryPacketOfAnRnrNakedMessageSoTheRnrWaitIsNoTransportTimeout() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 37)) {
            p.rnrRetry = 7;
            p.minRnrTimer = 14; // 1.28 ms: far longer than retry_cnt local ACK timeouts
            p.retryCnt = 1;
            p.timeout = 1; // 8.2 us
            p.connect();
            MemorySegment tx = p.random(3000, 37); // three packets at path MTU 1024, all refused for want of a receive
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 1, tx, 0, 3000, 0, 0, 0));
            p.f.runFor(10 * MS);
            assertEquals(List.of(), p.qa.sends(), "waiting out RNR NAKs is not silence: no RETRY_EXCEEDED");
            assertEquals(QpState.RTS, p.qa.qp().state());
            MemorySegment rx = p.receives(1, 4096);
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 10 * MS).get(0).status());
            assertArrayEquals(bytes(tx, 0, 3000), bytes(rx, 0, 3000));
        }
    }

    @Test
    void shouldFailWithRnrRetryExceededAfterRnrRetryNaks() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 32)) {
            p.rnrRetry = 2;
            p.connect();
            MemorySegment tx = p.random(4096, 32);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 1, tx, 0, 100, 0, 0, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 2, tx, 0, 100, 0, 0, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(2, 100 * MS);
            assertEquals(WcStatus.RNR_RETRY_EXCEEDED_ERROR, wcs.get(0).status());
            assertEquals(1, wcs.get(0).wrId());
            assertEquals(WcStatus.WR_FLUSH_ERROR, wcs.get(1).status());
            assertEquals(QpState.ERROR, p.qa.qp().state());
            assertEquals(3, p.b.counters().dropsSent[DropReason.RNR],
                "the first try and rnr_retry = 2 more, for the first message only: RNR is judged at the expected PSN (issue 25, rule 3)");
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 3, tx, 0, 1, 0, 0, 0), "a QP in ERROR takes a post");
            assertEquals(List.of(new TestQp.Wc(3, WcStatus.WR_FLUSH_ERROR, WcOpcode.SEND, 1, false, 0, p.qa.qpn(), 0, 0)), p.qa.sends(),
                "and flushes it at once, as verbs does");
        }
    }

    /**
     * An RNR NAK that arrives after the wait it caused is over (a copy of it delayed or duplicated
     * by the network) answers a transmission already repeated: it must not spend rnr_retry again.
     */
    @Test
    void shouldNotSpendRnrRetryOnALateCopyOfAnRnrNak() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 34)) {
            p.rnrRetry = 1;
            p.minRnrTimer = 1; // 10 us
            p.connect();
            MemorySegment tx = p.random(64, 34);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 1, tx, 0, 64, 0, 0, 0));
            DeviceQp r = p.qa.qp();
            assertTrue(p.f.runUntil(() -> RcInternals.rnrHolding(r), 10 * MS), "no receive: RNR NAKed, the one RNR retry taken");
            int psn = RcInternals.sender(r).sendBase;
            p.receives(1, 256);
            assertTrue(p.f.runUntil(() -> !RcInternals.rnrHolding(r), 10 * MS), "the wait is over: the SEND goes again");
            new Attacker(p.f).rcAck(0, SimFabric.ip(1), p.qb.qpn(), p.qa.qpn(), psn, psn, DropReason.RNR); // the first NAK, late
            List<TestQp.Wc> wcs = p.sendCompletions(1, 10 * MS);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status(), "the repeated SEND met the receive");
            assertEquals(QpState.RTS, p.qa.qp().state());
        }
    }

    @Test
    void shouldFailWithRetryExceededWhenThePeerFallsSilent() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 33)) {
            p.retryCnt = 3;
            p.timeout = 8; // 1.05 ms
            p.connect();
            MemorySegment rx = p.receives(1, 4096);
            MemorySegment tx = p.random(4096, 33);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 1, tx, 0, 100, 0, 0, 0));
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 10 * MS).get(0).status());
            p.qb.qp().destroy(); // the peer QP is gone: its packets are dropped without a word
            for (int i = 2; i <= 4; i++) {
                assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, i, tx, 0, 100, 0, 0, 0));
            }
            long start = p.f.network.clock().now();
            List<TestQp.Wc> wcs = p.sendCompletions(3, 1_000 * MS);
            long took = p.f.network.clock().now() - start;
            assertEquals(WcStatus.RETRY_EXCEEDED_ERROR, wcs.get(0).status());
            assertEquals(2, wcs.get(0).wrId());
            assertEquals(List.of(WcStatus.WR_FLUSH_ERROR, WcStatus.WR_FLUSH_ERROR), wcs.subList(1, 3).stream()
                    .map(TestQp.Wc::status).toList());
            assertEquals(QpState.ERROR, p.qa.qp().state());
            assertTrue(took >= 4 * LocalAckTimeout.nanos(8), "not before (retry_cnt + 1) local ACK timeouts: " + took);
            assertTrue(took < 100 * MS, "but soon after: " + took);
            assertEquals(1, p.a.counters().rcRetryExceeded);
        }
    }

    /**
     * A READ whose request was executed (the cumulative ACK passed it) waits on answers the peer
     * sends from its own PSN space; a peer that dies mid-answer leaves nothing outstanding for the
     * requester's retransmission timer. It fails all the same: RETRY_EXCEEDED_ERROR once no answer
     * has come for twice (retry_cnt + 1) local ACK timeouts (twice, so that a live peer still resending
     * its answers within its own budget is not given up on first), the QP in ERROR.
     */
    @Test
    void shouldFailAReadWhosePeerDiesMidAnswerWithRetryExceeded() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 39)) {
            p.retryCnt = 3;
            p.timeout = 8; // 1.05 ms
            p.connect();
            MemorySegment remote = p.random(MIB, 390);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_READ);
            MemorySegment into = p.f.arena.allocate(MIB, 64);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, 1, into, 0, MIB, remote.address(), rkey, 0));
            assertTrue(p.f.runUntil(() -> p.a.counters().readResponsesPlaced >= 8, 100 * MS), "the answer began");
            p.qb.qp().destroy(); // the peer stops answering without a word
            long start = p.f.network.clock().now();
            List<TestQp.Wc> wcs = p.sendCompletions(1, 1_000 * MS); // nothing else outstanding: no retransmission timer would see it
            long took = p.f.network.clock().now() - start;
            assertEquals(WcStatus.RETRY_EXCEEDED_ERROR, wcs.get(0).status());
            assertEquals(QpState.ERROR, p.qa.qp().state());
            assertTrue(took >= 2 * 4 * LocalAckTimeout.nanos(8) - 2 * MS, "not before twice (retry_cnt + 1) local ACK timeouts: " + took);
            assertTrue(took < 100 * MS, "but soon after: " + took);
        }
    }

    @Test
    void shouldFailBothEndsWhenAMessageDoesNotFitItsReceive() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 38).connect()) {
            p.receives(2, 1000);
            MemorySegment tx = p.random(3000, 38);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 1, tx, 0, 3000, 0, 0, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 2, tx, 0, 10, 0, 0, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(2, 100 * MS);
            assertEquals(WcStatus.REMOTE_INVALID_REQUEST_ERROR, wcs.get(0).status(), "as verbs: the requester hears INVALID_REQUEST");
            assertEquals(WcStatus.WR_FLUSH_ERROR, wcs.get(1).status());
            assertTrue(p.f.runUntil(() -> p.qb.recvCq().size() >= 2, 10 * MS));
            List<TestQp.Wc> rx = p.qb.receives();
            assertEquals(WcStatus.LOCAL_LENGTH_ERROR, rx.get(0).status(), "the receive it overran says why");
            assertEquals(WcStatus.WR_FLUSH_ERROR, rx.get(1).status(), "the other receive is flushed");
            assertEquals(QpState.ERROR, p.qa.qp().state());
            assertEquals(QpState.ERROR, p.qb.qp().state());
        }
    }

    @Test
    void shouldFailARequestRefusedAfterItsPacketWasHeldAndAcknowledgedSelectively() {
        // one path, which the blackhole takes
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 39, new TransportConfig().rcPaths(1)).connect()) {
            p.receives(1, 100);
            MemorySegment remote = p.f.arena.allocate(64, 64);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_WRITE);
            MemorySegment tx = p.random(3000, 39);
            p.f.network.blackhole(0, true); // the WRITE's one packet is lost
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 1, tx, 0, 8, remote.address(), rkey, 0));
            p.f.runFor(5_000);
            p.f.network.blackhole(0, false);
            // Arrives first, is held (its receive is posted: no RNR) and acknowledged selectively; when its turn
            // comes it does not fit the 100-byte receive.
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 2, tx, 0, 900, 0, 0, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(2, 100 * MS);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status(), "the WRITE, retransmitted, executed");
            assertEquals(WcStatus.REMOTE_INVALID_REQUEST_ERROR, wcs.get(1).status(), "a selective ACK is no completion");
            assertEquals(QpState.ERROR, p.qa.qp().state());
            assertTrue(p.b.counters().rcHeldEarly > 0, "the SEND waited in the reorder buffer");
        }
    }

    /** One remote access violation against b's region: the requester's completion, and b's memory after. */
    private static void refusedWithRemoteAccessError(String what, BiFunction<RcPair, MemorySegment, long[]> setUp, int opcode) {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 34).connect()) {
            MemorySegment remote = p.random(8192, 340);
            byte[] before = bytes(remote, 0, 8192);
            long[] target = setUp.apply(p, remote); // {address, rkey, length}
            MemorySegment local = p.random(8192, 341);
            assertEquals(TransportDevice.POST_OK, p.post(opcode, 1, local, 0, (int) target[2], target[0], (int) target[1], 0), what);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 2, local, 0, 8, remote.address(), 0, 0), what);
            List<TestQp.Wc> wcs = p.sendCompletions(2, 100 * MS);
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, wcs.get(0).status(), what);
            assertEquals(WcStatus.WR_FLUSH_ERROR, wcs.get(1).status(), what);
            assertEquals(QpState.ERROR, p.qa.qp().state(), what);
            p.f.runFor(10 * MS);
            assertEquals(QpState.ERROR, p.qb.qp().state(), what + ": the responder's QP fails too, as rxe's does");
            assertArrayEquals(before, bytes(remote, 0, 8192), what + ": nothing in the responder's memory changed");
            if (opcode == SendOpcode.RDMA_READ) {
                assertArrayEquals(bytes(p.random(8192, 341), 0, 8192), bytes(local, 0, 8192), what + ": nothing was read");
            }
        }
    }

    private static final int RW = MemoryRegions.REMOTE_WRITE | MemoryRegions.REMOTE_READ;

    @Test
    void shouldRefuseEveryRemoteAccessViolationWithRemoteAccessErrorChangingNothing() {
        for (int op : new int[] {SendOpcode.RDMA_WRITE, SendOpcode.RDMA_READ}) {
            String o = op == SendOpcode.RDMA_WRITE ? "WRITE " : "READ ";
            refusedWithRemoteAccessError(o + "bad rkey", (p, r) -> {
                int k = p.b.regions().register(r, 0, RW);
                return new long[] {r.address(), k ^ 0x55, 4096};
            }, op);
            refusedWithRemoteAccessError(o + "region of another PD", (p, r) -> {
                int k = p.b.regions().register(r, 7, RW);
                return new long[] {r.address(), k, 4096};
            }, op);
            refusedWithRemoteAccessError(o + "out of bounds", (p, r) -> {
                int k = p.b.regions().register(r.asSlice(0, 4096), 0, RW);
                return new long[] {r.address() + 1024, k, 4096};
            }, op);
            refusedWithRemoteAccessError(o + "region without the access flag", (p, r) -> {
                int k = p.b.regions().register(r, 0, op == SendOpcode.RDMA_WRITE ? MemoryRegions.REMOTE_READ : MemoryRegions.REMOTE_WRITE);
                return new long[] {r.address(), k, 4096};
            }, op);
            refusedWithRemoteAccessError(o + "deregistered region", (p, r) -> {
                int k = p.b.regions().register(r, 0, RW);
                p.b.regions().deregister(k);
                return new long[] {r.address(), k, 4096};
            }, op);
        }
    }

    @Test
    void shouldRefuseRdmaTheResponderQpDoesNotAllow() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 36).connect()) {
            p.qb.qp().modify(new QpAttributes().accessFlags(0)); // RTS -> RTS may change the QP's access flags
            MemorySegment remote = p.random(4096, 360);
            byte[] before = bytes(remote, 0, 4096);
            int k = p.b.regions().register(remote, 0, RW);
            MemorySegment local = p.random(4096, 361);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 1, local, 0, 4096, remote.address(), k, 0));
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, p.sendCompletions(1, 100 * MS).get(0).status());
            assertArrayEquals(before, bytes(remote, 0, 4096));
        }
    }
}
