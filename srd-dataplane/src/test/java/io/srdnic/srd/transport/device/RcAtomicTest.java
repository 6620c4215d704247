package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.HOSTILE;
import static io.srdnic.srd.transport.device.RcPair.MS;
import static io.srdnic.srd.transport.device.Requests.atomic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * RC atomics on the simulator, as IBTA has them: each runs exactly once at the responder, in order
 * with the QP's other requests, and the remote word's original value lands in the requester's
 * 8-byte buffer (both ends' words in host byte order), under loss, duplication and reordering too.
 */
class RcAtomicTest {

    /** A word in a region of b that grants REMOTE_ATOMIC, set to {@code value}. */
    private static MemorySegment word(RcPair p, long value) {
        MemorySegment w = p.f.arena.allocate(8, 8);
        w.set(ValueLayout.JAVA_LONG, 0, value);
        return w;
    }

    private static int atomicKey(RcPair p, MemorySegment w) {
        return p.b.regions().register(w, 0, MemoryRegions.REMOTE_ATOMIC);
    }

    @Test
    void shouldRunAThousandFetchAddsExactlyOnceUnderLossDuplicationAndReordering() {
        thousandFetchAddsExactlyOnce(41, 4);
    }

    /** Sixteen outstanding: the responder's answer slots run out now and then, and an atomic waits its turn unexecuted. */
    @Test
    void shouldRunThemExactlyOnceWithSixteenOutstanding() {
        SrdCounters responder = thousandFetchAddsExactlyOnce(48, QpAttributes.RD_ATOMIC_LIMIT);
        assertTrue(responder.atomicsDeferred > 0, "atomics waited for an answer slot");
    }

    /** 1000 FETCH_ADDs of 1 from a's QP to one word of b, {@code maxRdAtomic} outstanding; returns b's counters. */
    private static SrdCounters thousandFetchAddsExactlyOnce(long seed, int maxRdAtomic) {
        RcPair pair = new RcPair(HOSTILE, seed);
        pair.maxRdAtomic = maxRdAtomic;
        try (RcPair p = pair.connect()) {
            int n = 1000;
            MemorySegment counter = word(p, 0);
            int rkey = atomicKey(p, counter);
            MemorySegment results = p.f.arena.allocate(8L * n, 8);
            List<TestQp.Wc> wcs = new ArrayList<>();
            int posted = 0;
            while (wcs.size() < n) {
                while (posted < n && p.atomic(SendOpcode.ATOMIC_FETCH_ADD, posted, results, 8L * posted, counter.address(), rkey, 1, 0)
                    == TransportDevice.POST_OK) {
                    posted++;
                }
                int before = wcs.size();
                assertTrue(p.f.runUntil(() -> {
                    wcs.addAll(p.qa.sends());
                    return wcs.size() > before;
                }, 2_000 * MS), "atomics keep completing: " + wcs.size() + " of " + n);
            }
            assertEquals(n, counter.get(ValueLayout.JAVA_LONG, 0), "every add landed once, none twice");
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < n; i++) {
                TestQp.Wc wc = wcs.get(i);
                assertEquals(i, wc.wrId(), "completions in post order");
                assertEquals(WcStatus.SUCCESS, wc.status());
                assertEquals(WcOpcode.FETCH_ADD, wc.opcode());
                assertEquals(8, wc.byteLength());
                long original = results.get(ValueLayout.JAVA_LONG, 8L * i);
                assertTrue(seen.add(original), "each returned value is distinct: " + original + " twice");
                assertEquals(i, original, "one QP's atomics run in its post order, each seeing the ones before it");
            }
            p.f.runFor(50 * MS);
            assertEquals(n, counter.get(ValueLayout.JAVA_LONG, 0), "late copies of the requests changed nothing");
            assertEquals(n, p.b.counters().atomicsExecuted, "executed exactly once each");
            assertTrue(p.b.counters().duplicates > 0, "duplicated atomic requests reached the responder and were only acknowledged");
            assertTrue(p.a.counters().txRetransmits > 0, "lost atomic requests were sent again");
            assertTrue(p.b.counters().txRetransmits > 0, "lost answers were sent again from their slots, the atomics not run again");
            return p.b.counters();
        }
    }

    @Test
    void shouldCompareAndSwapOnlyOnAMatchReturningTheOriginalValue() {
        try (RcPair p = new RcPair(HOSTILE, 42).connect()) {
            long first = 0x0102_0304_0506_0708L; // every byte different: a byte-order slip shows
            MemorySegment w = word(p, first);
            int rkey = atomicKey(p, w);
            MemorySegment out = p.f.arena.allocate(24, 8);
            out.fill((byte) 0x5A);
            long second = 0xF0E0_D0C0_B0A0_9080L;
            assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_CMP_SWAP, 1, out, 0, w.address(), rkey, first, second));
            assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_CMP_SWAP, 2, out, 8, w.address(), rkey, first, 77));
            assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_FETCH_ADD, 3, out, 16, w.address(), rkey, -second, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(3, 1_000 * MS);
            assertEquals(List.of(WcOpcode.COMP_SWAP, WcOpcode.COMP_SWAP, WcOpcode.FETCH_ADD), wcs.stream().map(TestQp.Wc::opcode).toList());
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS), wcs.stream().map(TestQp.Wc::status).toList());
            assertEquals(first, out.get(ValueLayout.JAVA_LONG, 0), "the match: it returns the original value and swaps");
            assertEquals(second, out.get(ValueLayout.JAVA_LONG, 8), "no match: it returns the value found and changes nothing");
            assertEquals(second, out.get(ValueLayout.JAVA_LONG, 16), "the add found the swapped value");
            assertEquals(0, w.get(ValueLayout.JAVA_LONG, 0), "and wrapped it to 0 (two's complement)");
        }
    }

    /**
     * The READ comes last: its data is read when its answer is sent, so a request after it may
     * overtake it, as IBTA allows a READ's answer unless the later request is fenced.
     */
    @Test
    void shouldRunAtomicsInOrderWithTheQpsWritesAndReads() {
        try (RcPair p = new RcPair(HOSTILE, 43).connect()) {
            MemorySegment w = word(p, 0);
            int rkey = p.b.regions().register(w, 0, MemoryRegions.REMOTE_ATOMIC | MemoryRegions.REMOTE_WRITE | MemoryRegions.REMOTE_READ);
            MemorySegment local = p.f.arena.allocate(32, 8);
            local.set(ValueLayout.JAVA_LONG, 0, 40);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 1, local, 0, 8, w.address(), rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_FETCH_ADD, 2, local, 8, w.address(), rkey, 2, 0));
            assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_CMP_SWAP, 3, local, 16, w.address(), rkey, 42, 7));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, 4, local, 24, 8, w.address(), rkey, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(4, 1_000 * MS);
            assertEquals(List.of(1L, 2L, 3L, 4L), wcs.stream().map(TestQp.Wc::wrId).toList());
            assertEquals(List.of(WcOpcode.RDMA_WRITE, WcOpcode.FETCH_ADD, WcOpcode.COMP_SWAP, WcOpcode.RDMA_READ),
                wcs.stream().map(TestQp.Wc::opcode).toList());
            assertEquals(40, local.get(ValueLayout.JAVA_LONG, 8), "the add came after the write");
            assertEquals(42, local.get(ValueLayout.JAVA_LONG, 16), "the swap after the add, and it matched");
            assertEquals(7, local.get(ValueLayout.JAVA_LONG, 24), "the read after the swap");
            assertEquals(7, w.get(ValueLayout.JAVA_LONG, 0));
        }
    }

    @Test
    void shouldKeepNoMoreAtomicsOutstandingThanMaxRdAtomic() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 46)) {
            p.maxRdAtomic = 2;
            p.connect();
            MemorySegment w = word(p, 0);
            int rkey = atomicKey(p, w);
            MemorySegment out = p.f.arena.allocate(8 * 6, 8);
            for (int i = 0; i < 6; i++) {
                assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_FETCH_ADD, i, out, 8L * i, w.address(), rkey, 1, 0));
            }
            long before = p.a.counters().txData;
            p.f.runOnly(p.a, 200_000); // the responder stalls: no answer comes back, and no RTO falls due yet
            assertEquals(2, p.a.counters().txData - before, "two atomics on the wire, the other four wait for an answer");
            assertEquals(0, p.a.counters().txRetransmits);
            List<TestQp.Wc> wcs = p.sendCompletions(6, 100 * MS);
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), wcs.stream().map(TestQp.Wc::wrId).toList(), "all six run in turn");
            assertEquals(6, w.get(ValueLayout.JAVA_LONG, 0));
        }
    }

    @Test
    void shouldRefuseEveryAtomicWhenMaxRdAtomicIsZero() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 44)) {
            p.maxRdAtomic = 0;
            p.connect();
            MemorySegment w = word(p, 5);
            int rkey = atomicKey(p, w);
            MemorySegment out = p.f.arena.allocate(8, 8);
            assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_FETCH_ADD, 1, out, 0, w.address(), rkey, 1, 0));
            TestQp.Wc wc = p.sendCompletions(1, 10 * MS).get(0);
            assertEquals(WcStatus.LOCAL_QP_OPERATION_ERROR, wc.status(), "max_rd_atomic 0: no atomic may ever be outstanding");
            assertEquals(WcOpcode.FETCH_ADD, wc.opcode());
            assertEquals(5, w.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(0, p.a.counters().txData, "nothing went on the wire");
        }
    }

    @Test
    void shouldRefuseALocalBufferTheAnswerCannotLandInWithLocalProtectionError() {
        for (int bad = 0; bad < 3; bad++) { // a fresh connection each: a locally refused RC request puts its QP in ERROR (as rxe)
            try (RcPair p = new RcPair(LinkConfig.DEFAULT, 49 + bad).connect()) {
                MemorySegment w = word(p, 5);
                int rkey = atomicKey(p, w);
                MemorySegment out = p.f.arena.allocate(12, 8);
                MemorySegment buffer = bad == 2 ? out.asReadOnly() : out;
                long offset = bad == 0 ? 8 : bad == 1 ? -1 : 0;
                assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_CMP_SWAP, bad, buffer, offset, w.address(), rkey, 5, 6));
                List<TestQp.Wc> wcs = p.qa.sends();
                assertEquals(List.of((long) bad), wcs.stream().map(TestQp.Wc::wrId).toList());
                assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, wcs.get(0).status(), "8 writable bytes are needed for the answer: " + bad);
                assertEquals(QpState.ERROR, p.qa.qp().state(), "the requester met a bad WQE");
                p.f.runFor(MS);
                assertEquals(5, w.get(ValueLayout.JAVA_LONG, 0), "nothing ran");
                assertEquals(0, p.a.counters().txData);
            }
        }
    }

    @Test
    void shouldRefuseAtomicsLocallyOnDatagramQps() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 45).connect()) {
            MemorySegment out = p.f.arena.allocate(8, 8);
            for (QpType type : new QpType[] {QpType.SRD, QpType.UD}) {
                DeviceQp qp = p.a.createQp(new TransportQpAttributes(type).sqDepth(4).sendCq(p.qa.sendCq()).recvCq(p.qa.recvCq()));
                qp.modify(QpState.INIT, SimFabric.QKEY);
                qp.modify(QpState.RTR, 0);
                qp.modify(QpState.RTS, 0);
                for (int op : new int[] {SendOpcode.ATOMIC_CMP_SWAP, SendOpcode.ATOMIC_FETCH_ADD}) {
                    assertEquals(TransportDevice.POST_OK, p.a.post(qp, atomic(op, op, out, 0).remote(64, 1).operands(1, 2)));
                    TestQp.Wc wc = p.qa.sends().get(0);
                    assertEquals(WcStatus.LOCAL_QP_OPERATION_ERROR, wc.status(), type + ": atomics are RC's alone");
                    assertEquals(SendOpcode.completionOpcode(op), wc.opcode());
                }
                assertEquals(0, qp.sendsOutstanding());
            }
            assertEquals(0, p.a.counters().txData, "nothing went on the wire");
        }
    }
}
