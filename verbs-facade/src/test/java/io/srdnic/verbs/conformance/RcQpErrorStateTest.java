package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.WorkCompletion;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Rule 6 of issue 25: a state the transport moves a QP to is the QP's state. After a fatal error
 * the QP is in ERROR for query() and every later verb; a receive posted in ERROR is accepted and
 * completes WR_FLUSH_ERR (verbs: the kernel flushes what is posted to a QP in ERROR); nothing posted
 * stops DEDICATED mode's agent thread, and control calls go on answering. Mirrors rdma-core's
 * {@code test_qp.py::test_query_qp} state checks, after an error the transport made.
 */
class RcQpErrorStateTest extends ConformanceCase {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @ParameterizedTest
    @EnumSource(ThreadingMode.class)
    void shouldSeeTheTransportsErrorEverywhereAndFlushReceivesPostedInIt(ThreadingMode mode) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (RcConformancePair p = pair(2561, LinkConfig.DEFAULT, 64 * 1024, mode)) {
                SendWr bad = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).rdma(p.b.mem.address(), p.b.mr.rkey() ^ 0x3300).numSge(1);
                bad.sge(0).set(p.a.mr, 0, 64);
                assertEquals(0, p.a.qp.postSend(bad));
                List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 1, 10);
                assertEquals(WcStatus.REMOTE_ACCESS_ERROR, wcs.get(0).status());
                // Posted before anything asked the QP its state: the layer above has not heard of the ERROR yet.
                RecvWr r = new RecvWr();
                r.wrId(77).sge().set(p.a.mr, 4096, 1024);
                assertEquals(0, p.a.qp.postRecv(r), "a receive posted in ERROR is accepted");
                assertEquals(QpState.ERROR, p.a.qp.query().state(), "the transport's ERROR is the QP's");
                r.wrId(78);
                assertEquals(0, p.a.qp.postRecv(r), "and again, once the layer above knows");
                List<WorkCompletion> flushed = RcConformancePair.await(p.a.cq, 2, 10);
                assertEquals(List.of(77L, 78L), flushed.stream().map(WorkCompletion::wrId).toList());
                for (WorkCompletion wc : flushed) {
                    assertEquals(WcStatus.WR_FLUSH_ERROR, wc.status(), wc.statusName());
                }
                assertNotNull(p.a.ctx.allocPd(), "the dataplane still answers control calls");
            }
        });
    }
}
