package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.GatherList;
import io.srdnic.srd.transport.port.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link TransportDevice#post}: one work-request shape for every QP type and opcode, read during the
 * call only (the caller refills it at once), allocating nothing per post.
 */
class WorkRequestPostTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Refills {@code wr} as a signaled request of {@code opcode} on {@code length} bytes of {@code buffer}. */
    private static WorkRequest fill(WorkRequest wr, long wrId, int opcode, MemorySegment buffer, int length) {
        wr.clear();
        wr.wrId = wrId;
        wr.opcode = opcode;
        wr.buffer = buffer;
        wr.length = length;
        wr.signaled = true;
        return wr;
    }

    @Test
    void shouldSendWhatTheRequestNamedEvenWhenItIsRefilledAtOnce() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 71).connect()) {
            MemorySegment rx = p.receives(2, 4096);
            MemorySegment first = p.random(1000, 1);
            MemorySegment second = p.random(3000, 2);
            WorkRequest wr = new WorkRequest();
            assertEquals(TransportDevice.POST_OK, p.a.post(p.qa.qp(), fill(wr, 1, SendOpcode.SEND, first, 1000)));
            fill(wr, 2, SendOpcode.SEND_WITH_IMM, second, 3000).immediate = 0x1234; // refilled at once: what was posted stays
            assertEquals(TransportDevice.POST_OK, p.a.post(p.qa.qp(), wr));
            List<TestQp.Wc> sends = p.sendCompletions(2, 100 * MS);
            assertEquals(List.of(1L, 2L), sends.stream().map(TestQp.Wc::wrId).toList());
            assertTrue(p.f.runUntil(() -> p.qb.recvCq().size() >= 2, 100 * MS));
            List<TestQp.Wc> recvs = p.qb.receives();
            assertEquals(1000, recvs.get(0).byteLength());
            assertEquals(3000, recvs.get(1).byteLength());
            assertEquals(0x1234, recvs.get(1).imm());
            assertArrayEquals(RcPair.bytes(first, 0, 1000), RcPair.bytes(rx, 0, 1000));
            assertArrayEquals(RcPair.bytes(second, 0, 3000), RcPair.bytes(rx, 4096, 3000));
        }
    }

    @Test
    void shouldSendTheEntriesOfAGatherListAsOneMessage() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 72).connect()) {
            MemorySegment rx = p.receives(1, 8192);
            MemorySegment a = p.random(2500, 3);
            MemorySegment b = p.random(1700, 4);
            GatherList sges = new GatherList();
            sges.add(a, 100, 2400);
            sges.add(b, 0, 1700);
            WorkRequest wr = fill(new WorkRequest(), 9, SendOpcode.SEND, null, 4100);
            wr.sges = sges;
            assertEquals(TransportDevice.POST_OK, p.a.post(p.qa.qp(), wr));
            sges.clear(); // copied by the post
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 100 * MS).get(0).status());
            assertTrue(p.f.runUntil(() -> p.qb.recvCq().size() >= 1, 100 * MS));
            assertEquals(4100, p.qb.receives().get(0).byteLength());
            assertArrayEquals(RcPair.bytes(a, 100, 2400), RcPair.bytes(rx, 0, 2400));
            assertArrayEquals(RcPair.bytes(b, 0, 1700), RcPair.bytes(rx, 2400, 1700));
        }
    }

    @Test
    void shouldRefuseAnAtomicWhoseRemoteWordIsNotAligned() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 73).connect()) {
            MemorySegment out = p.f.arena.allocate(16, 8);
            WorkRequest wr = new WorkRequest();
            wr.wrId = 5;
            wr.opcode = SendOpcode.ATOMIC_FETCH_ADD;
            wr.buffer = out;
            wr.remoteAddress = 3; // not 8-byte aligned: EINVAL, nothing posted
            wr.compareOrAdd = 1;
            wr.signaled = true;
            assertEquals(TransportDevice.POST_INVALID, p.a.post(p.qa.qp(), wr));
        }
    }

    @Test
    void shouldAllocateNothingPerPost() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 74).connect()) {
            p.receives(64, 256);
            MemorySegment tx = p.random(256, 5);
            WorkRequest wr = new WorkRequest();
            for (int round = 0; round < 3; round++) { // warm: the first rounds may load classes
                long before = THREADS.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 16; i++) {
                    assertEquals(TransportDevice.POST_OK, p.a.post(p.qa.qp(), fill(wr, round * 16 + i, SendOpcode.SEND, tx, 256)));
                }
                long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
                p.sendCompletions(16, 100 * MS);
                if (round == 2) {
                    assertEquals(0, allocated, "bytes allocated by 16 posts");
                }
            }
        }
    }
}
