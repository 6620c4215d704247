package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rule 4 of issue 25: zero-length RDMA. A zero-byte RDMA WRITE, WRITE_WITH_IMM or READ needs no
 * valid rkey or address (IBTA C9-88; rxe's responder skips the check for a zero DMA length) and may
 * be posted with num_sge 0; WRITE_WITH_IMM of zero bytes is the usual doorbell: SUCCESS, and the
 * immediate delivered in the peer's receive (rdma-core has no zero-length test; rxe_resp.c applies C9-88).
 */
class RcZeroLengthRdmaTest extends ConformanceCase {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @ParameterizedTest
    @ValueSource(longs = {2541, 2542, 2543})
    void shouldCompleteZeroByteRdmaThatNamesNoMemory(long seed) {
        try (RcConformancePair p = pair(seed, RcConformancePair.HOSTILE, 64 * 1024)) {
            SendWr write = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).rdma(0, 0).numSge(0);
            SendWr read = new SendWr().wrId(2).opcode(SendWr.OP_RDMA_READ).rdma(0xDEAD_0000L, 0x1234_5678).numSge(0);
            SendWr emptySge = new SendWr().wrId(3).opcode(SendWr.OP_RDMA_WRITE).rdma(0, 0x77).numSge(1);
            emptySge.sge(0).set(p.a.mr, 0, 0);
            for (SendWr wr : new SendWr[] {write, read, emptySge}) {
                assertEquals(0, p.a.qp.postSend(wr));
            }
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 3, 20);
            assertEquals(List.of(1L, 2L, 3L), wcs.stream().map(WorkCompletion::wrId).toList());
            for (WorkCompletion wc : wcs) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.wrId() + ": " + wc.statusName());
                assertEquals(0, wc.byteLength());
            }
            assertEquals(QpState.RTS, p.a.qp.query().state());
            assertEquals(QpState.RTS, p.b.qp.query().state());
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {2544, 2545, 2546})
    void shouldDeliverTheImmediateOfAZeroByteWriteWithImmediate(long seed) {
        try (RcConformancePair p = pair(seed, RcConformancePair.HOSTILE, 64 * 1024)) {
            RcConformancePair.postReceives(p.b, 1, 4096, 1024);
            SendWr doorbell = new SendWr().wrId(3).opcode(SendWr.OP_RDMA_WRITE_WITH_IMM).immediate(0x2525).rdma(0, 0).numSge(0);
            assertEquals(0, p.a.qp.postSend(doorbell));
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 1, 20);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status(), wcs.get(0).statusName());
            List<WorkCompletion> rx = RcConformancePair.await(p.b.cq, 1, 10);
            assertEquals(1, rx.size(), "the doorbell consumed one receive");
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, rx.get(0).opcode());
            assertTrue(rx.get(0).hasImmediate());
            assertEquals(0x2525, rx.get(0).immediate());
            assertEquals(0, rx.get(0).byteLength());
        }
    }
}
