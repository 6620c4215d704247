package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.HOSTILE;
import static io.srdnic.srd.transport.device.RcPair.MS;
import static io.srdnic.srd.transport.device.RcPair.bytes;
import static io.srdnic.srd.transport.device.Requests.atomic;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.wire.DropReason;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seed 001's protocol on the simulator: one SRC send queue reaches every job's SRQ on the remote
 * node; each message takes its receive from the SRQ its packets name and completes on that SRQ's
 * CQ; RDMA and atomics are checked against that SRQ's protection domain; the packets follow RC's
 * rules (PSNs, ACKs, segmentation, retries) under 5% loss, duplication and reordering.
 */
class SrcDeliveryTest {
    private static final int JOBS = 4;
    private static final int SIZE = 10_000; // ten 1024-byte packets: every one must name the SRQ

    @Test
    void shouldDeliverEachMessageToTheSrqItNamesUnderFaults() {
        try (SrcPair p = new SrcPair(HOSTILE, 41, JOBS).connect()) {
            int perJob = 6;
            MemorySegment[] rx = new MemorySegment[JOBS];
            for (int j = 0; j < JOBS; j++) {
                rx[j] = p.receives(j, perJob, SIZE);
            }
            MemorySegment tx = p.random(JOBS * perJob, SIZE, 41);
            int n = 0;
            for (int i = 0; i < perJob; i++) {
                for (int j = JOBS - 1; j >= 0; j--) { // interleaved: consecutive messages go to different SRQs
                    int op = n % 2 == 0 ? SendOpcode.SEND : SendOpcode.SEND_WITH_IMM;
                    assertEquals(TransportDevice.POST_OK, p.post(SrcPair.SRQN + j, op, n, tx, (long) n * SIZE, SIZE - n, 0, 0, 0xC000 + n));
                    n++;
                }
            }
            List<TestQp.Wc> sends = p.sendCompletions(n, 20_000 * MS);
            for (int k = 0; k < n; k++) {
                assertEquals(k, sends.get(k).wrId(), "send completions in post order");
                assertEquals(WcStatus.SUCCESS, sends.get(k).status());
            }
            p.f.runFor(20 * MS);
            for (int j = 0; j < JOBS; j++) {
                List<TestQp.Wc> recvs = p.srqCompletions(j);
                assertEquals(perJob, recvs.size(), "SRQ " + j + ": each of its messages once, on its own CQ");
                for (int i = 0; i < perJob; i++) {
                    int msg = i * JOBS + (JOBS - 1 - j);
                    TestQp.Wc wc = recvs.get(i);
                    assertEquals(1000L * j + i, wc.wrId(), "the SRQ's receives taken in order");
                    assertEquals(WcStatus.SUCCESS, wc.status());
                    assertEquals(SIZE - msg, wc.byteLength());
                    assertEquals(p.qb.qpn(), wc.qpn());
                    assertEquals(p.qa.qpn(), wc.srcQpn());
                    assertEquals(msg % 2 == 1, wc.hasImm());
                    assertArrayEquals(bytes(tx, (long) msg * SIZE, SIZE - msg), bytes(rx[j], (long) i * SIZE, SIZE - msg),
                        "message " + msg + " intact in SRQ " + j);
                }
                assertEquals(0, p.srqs[j].receivesPosted());
            }
            assertTrue(p.a.counters().txRetransmits > 0, "the faults cost retransmissions");
            assertTrue(p.b.counters().rcHeldEarly > 0, "packets came early and waited, as on RC");
            assertTrue(p.b.counters().duplicates > 0, "duplicates were not executed again");
        }
    }

    @Test
    void shouldWaitOutAnRnrNakUntilTheNamedSrqHasAReceive() {
        try (SrcPair p = new SrcPair(LinkConfig.DEFAULT, 42, 2).connect()) {
            p.receives(0, 1, 64);
            MemorySegment tx = p.random(1, 64, 42);
            assertEquals(TransportDevice.POST_OK, p.post(SrcPair.SRQN + 1, SendOpcode.SEND, 1, tx, 0, 64, 0, 0, 0));
            p.f.runFor(5 * MS);
            assertTrue(p.b.counters().dropsSent[DropReason.RNR] > 0, "SRQ 1 had no receive: RNR NAK");
            assertEquals(List.of(), p.srqCompletions(0), "SRQ 0's receive is not another SRQ's");
            assertEquals(1, p.srqs[0].receivesPosted());
            p.receives(1, 1, 64);
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 100 * MS).get(0).status());
            p.f.runFor(MS);
            assertEquals(1, p.srqCompletions(1).size());
        }
    }

    @Test
    void shouldCheckRdmaAgainstTheNamedSrqsProtectionDomain() {
        try (SrcPair p = new SrcPair(HOSTILE, 43, 2).connect()) {
            // SRQ 0 is in PD 1: its job's memory, registered in PD 1.
            MemorySegment remote = p.f.arena.allocate(64 * 1024, 64);
            int rkey = p.b.regions().register(remote, 1, MemoryRegions.REMOTE_WRITE | MemoryRegions.REMOTE_READ
                | MemoryRegions.REMOTE_ATOMIC);
            MemorySegment tx = p.random(1, 40_000, 43);
            MemorySegment into = p.f.arena.allocate(40_000, 64);
            MemorySegment word = p.f.arena.allocate(8, 8);
            int srq0 = SrcPair.SRQN;
            assertEquals(TransportDevice.POST_OK, p.post(srq0, SendOpcode.RDMA_WRITE, 1, tx, 0, 40_000, remote.address(), rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.post(srq0, SendOpcode.RDMA_READ, 2, into, 0, 40_000, remote.address(), rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.a.post(p.qa.qp(), atomic(3, SendOpcode.ATOMIC_FETCH_ADD, word, 0)
                .remote(remote.address() + 48_000, rkey).operands(5, 0).remoteSrqn(srq0)));
            List<TestQp.Wc> ok = p.sendCompletions(3, 20_000 * MS);
            assertTrue(ok.stream().allMatch(w -> w.status() == WcStatus.SUCCESS), ok.toString());
            assertEquals(WcOpcode.FETCH_ADD, ok.get(2).opcode());
            assertArrayEquals(bytes(tx, 0, 40_000), bytes(remote, 0, 40_000));
            assertArrayEquals(bytes(tx, 0, 40_000), bytes(into, 0, 40_000));
            assertEquals(5, remote.get(ValueLayout.JAVA_LONG_UNALIGNED, 48_000));
            // A WRITE with immediate consumes a receive of the SRQ it names, and completes on that SRQ's CQ.
            p.receives(0, 1, 16);
            assertEquals(TransportDevice.POST_OK, p.post(srq0, SendOpcode.RDMA_WRITE_WITH_IMM, 6, tx, 0, 3000,
                    remote.address() + 52_000, rkey,
                0xFEED));
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 20_000 * MS).get(0).status());
            p.f.runFor(MS);
            List<TestQp.Wc> imm = p.srqCompletions(0);
            assertEquals(1, imm.size());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, imm.get(0).opcode());
            assertEquals(0xFEED, imm.get(0).imm());
            assertEquals(3000, imm.get(0).byteLength());
            assertEquals(List.of(), p.srqCompletions(1));
            // The same rkey through SRQ 1 (PD 2): another job's protection domain, refused, nothing written.
            assertEquals(TransportDevice.POST_OK, p.post(srq0 + 1, SendOpcode.RDMA_WRITE, 4, tx, 0, 8, remote.address() + 50_000, rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.post(srq0, SendOpcode.RDMA_WRITE, 5, tx, 0, 8, remote.address() + 50_000, rkey, 0));
            List<TestQp.Wc> refused = p.sendCompletions(2, 20_000 * MS);
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, refused.get(0).status());
            assertEquals(WcStatus.WR_FLUSH_ERROR, refused.get(1).status());
            assertEquals(0L, remote.get(ValueLayout.JAVA_LONG_UNALIGNED, 50_000), "nothing written");
            assertEquals(QpState.ERROR, p.qa.qp().state());
            assertEquals(QpState.ERROR, p.qb.qp().state());
        }
    }
}
