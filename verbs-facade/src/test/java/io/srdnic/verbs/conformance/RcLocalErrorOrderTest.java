package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rule 1 of issue 25: completion order on RC is post order, errors included. A work request refused
 * by a local check (rxe's requester meets the bad WQE: a bad lkey, an SGE outside its region, a
 * READ into memory without LOCAL_WRITE) completes with its error only after every WR posted before
 * it, the QP goes to ERROR and every WR posted after it completes WR_FLUSH_ERR. Mirrors rdma-core's
 * {@code test_atomic.py::test_atomic_invalid_lkey}
 * (there the status; here also its place in the order, which selective signaling relies on).
 */
class RcLocalErrorOrderTest extends ConformanceCase {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final int WRITE_BYTES = 256 * 1024;

    @ParameterizedTest(name = "{0}, seed {1}")
    @CsvSource({"BAD_LKEY, 2511", "SGE_OUTSIDE_REGION, 2512", "READ_INTO_READ_ONLY, 2513", "BAD_LKEY, 2514"})
    void shouldCompleteALocallyRefusedRequestAfterThoseBeforeItAndFlushThoseAfter(String fault, long seed) {
        try (RcConformancePair p = pair(seed, RcConformancePair.HOSTILE, 512 * 1024)) {
            MemoryRegion target = p.b.mr;
            SendWr write = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).rdma(target.segment().address(), target.rkey()).numSge(1);
            write.sge(0).set(p.a.mr, 0, WRITE_BYTES);
            SendWr bad = new SendWr().wrId(2).numSge(1);
            switch (fault) {
                case "BAD_LKEY" -> {
                    bad.opcode(SendWr.OP_SEND);
                    bad.sge(0).set(p.a.mem, 0, 64, p.a.mr.lkey() ^ 0x777700);
                }
                case "SGE_OUTSIDE_REGION" -> {
                    bad.opcode(SendWr.OP_SEND);
                    bad.sge(0).set(p.a.mr, 512 * 1024 - 32, 64);
                }
                default -> {
                    MemoryRegion readOnly = p.a.pd.registerMemory(p.a.memory(4096), Access.REMOTE_READ);
                    bad.opcode(SendWr.OP_RDMA_READ).rdma(target.segment().address(), target.rkey());
                    bad.sge(0).set(readOnly, 0, 64);
                }
            }
            SendWr after = new SendWr().wrId(3).opcode(SendWr.OP_SEND).numSge(1);
            after.sge(0).set(p.a.mr, 0, 64);
            RcConformancePair.postReceives(p.b, 4, 400 * 1024, 1024);
            assertEquals(0, p.a.qp.postSend(write));
            assertEquals(0, p.a.qp.postSend(bad));
            int third;
            try {
                third = p.a.qp.postSend(after);
            } catch (RuntimeException inError) {
                third = -1; // the QP already in ERROR: refused at posting is as good as flushed, but verbs accepts and flushes
            }
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, third == 0 ? 3 : 2, 20);
            assertEquals(third == 0 ? List.of(1L, 2L, 3L) : List.of(1L, 2L), wcs.stream().map(WorkCompletion::wrId).toList(),
                "post order, the refused request included");
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status(), "the WRITE before it was executed");
            assertTrue(wcs.get(1).status() == WcStatus.LOCAL_PROTECTION_ERROR, wcs.get(1).statusName());
            if (third == 0) {
                assertEquals(WcStatus.WR_FLUSH_ERROR, wcs.get(2).status(), "what was posted after it is flushed");
            }
            assertEquals(-1, MemorySegment.mismatch(p.a.mem, 0, WRITE_BYTES, p.b.mem, 0, WRITE_BYTES), "the WRITE landed");
            assertEquals(QpState.ERROR, p.a.qp.query().state(), "the requester that met the bad WQE is in ERROR");
            assertEquals(0, RcConformancePair.drain(p.b.cq, 50).size(), "the SEND after it was never delivered");
        }
    }
}
