package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpAttributes;
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
    void shouldReportTheTransportsErrorAsTheQpsState(ThreadingMode mode) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (RcConformancePair p = pair(2561, LinkConfig.DEFAULT, 64 * 1024, mode)) {
                failWithRemoteAccessError(p);
                assertEquals(QpState.ERROR, p.a.qp.query().state(), "the transport's ERROR is the QP's");
                assertNotNull(p.a.ctx.allocPd(), "the dataplane still answers control calls");
            }
        });
    }

    @ParameterizedTest
    @EnumSource(ThreadingMode.class)
    void shouldFlushReceivesPostedInError(ThreadingMode mode) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (RcConformancePair p = pair(2569, LinkConfig.DEFAULT, 64 * 1024, mode)) {
                failWithRemoteAccessError(p);
                // Posted before anything asked the QP its state: the layer above has not heard of the ERROR yet.
                RecvWr r = new RecvWr();
                r.wrId(77).sge().set(p.a.mr, 4096, 1024);
                assertEquals(0, p.a.qp.postRecv(r), "a receive posted in ERROR is accepted");
                assertEquals(QpState.ERROR, p.a.qp.query().state());
                r.wrId(78);
                assertEquals(0, p.a.qp.postRecv(r), "and again, once the layer above knows");
                List<WorkCompletion> flushed = RcConformancePair.await(p.a.cq, 2, 10);
                assertEquals(List.of(77L, 78L), flushed.stream().map(WorkCompletion::wrId).toList());
                for (WorkCompletion wc : flushed) {
                    assertEquals(WcStatus.WR_FLUSH_ERROR, wc.status(), wc.statusName());
                }
            }
        });
    }

    /**
     * Rule 6, sends: a send posted to a QP in ERROR is accepted and completes WR_FLUSH_ERR (an error
     * is always reported, signaled or not), as rxe's requester flushes what it finds in ERROR —
     * whether the poster had heard of the ERROR yet or not, and after a modify to ERROR of its own.
     */
    @ParameterizedTest
    @EnumSource(ThreadingMode.class)
    void shouldAcceptAndFlushSendsPostedInError(ThreadingMode mode) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (RcConformancePair p = pair(2562, LinkConfig.DEFAULT, 64 * 1024, mode)) {
                failWithRemoteAccessError(p);
                SendWr send = new SendWr().wrId(2).opcode(SendWr.OP_SEND).numSge(1);
                send.sge(0).set(p.a.mr, 0, 64);
                assertEquals(0, p.a.qp.postSend(send), "posted before the poster heard of the ERROR: accepted");
                assertEquals(QpState.ERROR, p.a.qp.query().state());
                send.wrId(3).flags(0);
                assertEquals(0, p.a.qp.postSend(send), "unsignaled, once the poster knows: accepted");
                SendWr write = new SendWr().wrId(4).opcode(SendWr.OP_RDMA_WRITE).rdma(p.b.mem.address(), p.b.mr.rkey()).numSge(1);
                write.sge(0).set(p.a.mr, 0, 64);
                assertEquals(0, p.a.qp.postSend(write));
                List<WorkCompletion> flushed = RcConformancePair.await(p.a.cq, 3, 10);
                assertEquals(List.of(2L, 3L, 4L), flushed.stream().map(WorkCompletion::wrId).toList(), "in post order");
                for (WorkCompletion wc : flushed) {
                    assertEquals(WcStatus.WR_FLUSH_ERROR, wc.status(), wc.statusName());
                }
                // b's QP is in ERROR too (it sent the fatal NAK): nothing posted in ERROR reached it.
                assertEquals(List.of(), RcConformancePair.drain(p.b.cq, 20), "nothing delivered");
                // A QP the application itself moved to ERROR flushes as well.
                p.b.qp.modify(new QpAttributes().state(QpState.ERROR));
                send.wrId(5).flags(SendWr.SIGNALED);
                assertEquals(0, p.b.qp.postSend(send));
                List<WorkCompletion> own = RcConformancePair.await(p.b.cq, 1, 10);
                assertEquals(5L, own.get(0).wrId());
                assertEquals(WcStatus.WR_FLUSH_ERROR, own.get(0).status(), own.get(0).statusName());
            }
        });
    }

    /** A WRITE through a bad rkey: REMOTE_ACCESS_ERROR, and the transport puts both QPs in ERROR. */
    private static void failWithRemoteAccessError(RcConformancePair p) {
        SendWr bad = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).rdma(p.b.mem.address(), p.b.mr.rkey() ^ 0x3300).numSge(1);
        bad.sge(0).set(p.a.mr, 0, 64);
        assertEquals(0, p.a.qp.postSend(bad));
        assertEquals(WcStatus.REMOTE_ACCESS_ERROR, RcConformancePair.await(p.a.cq, 1, 10).get(0).status());
    }
}
