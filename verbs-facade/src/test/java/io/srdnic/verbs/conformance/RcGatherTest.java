package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.DeviceAttributes;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rule 5 of issue 25: a SEND or WRITE gathered from several SGEs is the same message as one SGE of
 * the same bytes, up to the QP type's maximum message size (RC: 1 GiB), as {@code ibv_post_send}
 * with num_sge > 1 is on any provider (rdma-core {@code tests/utils.py}'s multi-SGE traffic); and
 * {@code queryDevice()} says that maximum per transport.
 */
class RcGatherTest extends ConformanceCase {
    private static final int PIECE = 3000;
    private static final int MESSAGE = 3 * PIECE;

    @Test
    void shouldDeliverAGatheredSendLongerThanTheMtuAsOneMessage() {
        try (RcConformancePair p = pair(2551, LinkConfig.DEFAULT, 64 * 1024)) {
            sendGathered(p);
        }
    }

    @Test
    void shouldDeliverAGatheredSendPostedThroughTheDedicatedRing() {
        try (RcConformancePair p = pair(2552, LinkConfig.DEFAULT, 64 * 1024, ThreadingMode.DEDICATED)) {
            sendGathered(p);
        }
    }

    @Test
    void shouldDeliverAGatheredSendUnderLossAndReordering() {
        try (RcConformancePair p = pair(2553, RcConformancePair.HOSTILE, 64 * 1024)) {
            sendGathered(p);
        }
    }

    @Test
    void shouldLandAGatheredWriteLongerThanTheMtuAsOneWrite() {
        try (RcConformancePair p = pair(2554, LinkConfig.DEFAULT, 64 * 1024)) {
            fill(p.a.mem);
            long target = 40 * 1024;
            SendWr write = new SendWr(3).wrId(2).opcode(SendWr.OP_RDMA_WRITE).rdma(p.b.mem.address() + target, p.b.mr.rkey()).numSge(3);
            // The pieces out of order in memory: the message is the SGEs in list order, not the buffer's.
            write.sge(0).set(p.a.mr, 2 * PIECE, PIECE);
            write.sge(1).set(p.a.mr, 0, PIECE);
            write.sge(2).set(p.a.mr, PIECE, PIECE);
            assertEquals(0, p.a.qp.postSend(write));
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 1, 10);
            assertEquals("SUCCESS", wcs.get(0).statusName());
            assertEquals(-1, MemorySegment.mismatch(p.a.mem, 2 * PIECE, MESSAGE, p.b.mem, target, target + PIECE));
            assertEquals(-1, MemorySegment.mismatch(p.a.mem, 0, 2 * PIECE, p.b.mem, target + PIECE, target + MESSAGE));
        }
    }

    @Test
    void shouldReportTheMaximumMessageSizePerTransport() {
        try (RcConformancePair p = pair(2555, LinkConfig.DEFAULT, 4096)) {
            DeviceAttributes caps = p.a.ctx.queryDevice();
            assertEquals(1 << 30, caps.maxMessageSize(QpType.RC), "RC segments a message: up to 1 GiB");
            assertEquals(1 << 30, caps.maxMessageSize(QpType.SRC));
            assertEquals(caps.mtu(), caps.maxMessageSize(QpType.SRD), "SRD sends one packet");
            assertEquals(caps.mtu(), caps.maxMessageSize(QpType.UD));
        }
    }

    private static void fill(MemorySegment mem) {
        for (int i = 0; i < 16 * 1024; i += 8) {
            mem.set(ValueLayout.JAVA_LONG, i, 0x2555L * i + 1);
        }
    }

    /** Three SGEs of 3000 bytes, over a 1024-byte path MTU: one receive of 9000 bytes, the same bytes. */
    private static void sendGathered(RcConformancePair p) {
        fill(p.a.mem);
        RcConformancePair.postReceives(p.b, 1, 32 * 1024, 16 * 1024);
        SendWr send = new SendWr(3).wrId(1).opcode(SendWr.OP_SEND).numSge(3);
        send.sge(0).set(p.a.mr, 0, PIECE);
        send.sge(1).set(p.a.mr, PIECE, PIECE);
        send.sge(2).set(p.a.mr, 2 * PIECE, PIECE);
        assertEquals(0, p.a.qp.postSend(send));
        List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 1, 10);
        assertEquals("SUCCESS", wcs.get(0).statusName());
        List<WorkCompletion> rx = RcConformancePair.await(p.b.cq, 1, 10);
        assertEquals("SUCCESS", rx.get(0).statusName());
        assertEquals(MESSAGE, rx.get(0).byteLength());
        assertEquals(-1, MemorySegment.mismatch(p.a.mem, 0, MESSAGE, p.b.mem, 32 * 1024, 32 * 1024 + MESSAGE));
    }
}
