package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rule 2 of issue 25: a fatal NAK does not erase what the responder executed before it. Mirrors
 * rdma-core's {@code test_atomic.py::test_atomic_invalid_rkey} and {@code ::test_atomic_invalid_mr_access},
 * with READs and atomics outstanding before the refused request, as rxe's responder sends
 * their responses in PSN order before the NAK and rxe's completer completes them first.
 */
class RcFatalNakTest extends ConformanceCase {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final int READ_BYTES = 48 * 1024;
    private static final int WORD_AT = 64 * 1024;
    private static final int ANSWER_AT = 96 * 1024;

    @ParameterizedTest
    @ValueSource(longs = {2501, 2502, 2503, 2504, 2505})
    void shouldAnswerTheReadAndAtomicBeforeABadRkeyWriteAndFlushOnlyWhatCameAfterIt(long seed) {
        try (RcConformancePair p = pair(seed, RcConformancePair.HOSTILE, 128 * 1024)) {
            for (int i = 0; i < READ_BYTES; i += 8) {
                p.b.mem.set(ValueLayout.JAVA_LONG_UNALIGNED, i, seed * 7919 + i);
            }
            p.b.mem.set(ValueLayout.JAVA_LONG, WORD_AT, 40);
            SendWr read = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_READ).flags(SendWr.SIGNALED)
                .rdma(p.b.mem.address(), p.b.mr.rkey()).numSge(1);
            read.sge(0).set(p.a.mr, 0, READ_BYTES);
            SendWr add = new SendWr().wrId(2).opcode(SendWr.OP_ATOMIC_FETCH_ADD).flags(SendWr.SIGNALED)
                .atomic(p.b.mem.address() + WORD_AT, p.b.mr.rkey(), 2, 0).numSge(1);
            add.sge(0).set(p.a.mr, ANSWER_AT, 8);
            SendWr badWrite = new SendWr().wrId(3).opcode(SendWr.OP_RDMA_WRITE).flags(SendWr.SIGNALED)
                .rdma(p.b.mem.address(), p.b.mr.rkey() ^ 0x5A5A00).numSge(1);
            badWrite.sge(0).set(p.a.mr, 0, 64);
            SendWr send = new SendWr().wrId(4).opcode(SendWr.OP_SEND).flags(SendWr.SIGNALED).numSge(1);
            send.sge(0).set(p.a.mr, 0, 64);
            RcConformancePair.postReceives(p.b, 4, 100 * 1024, 1024);
            for (SendWr wr : new SendWr[] {read, add, badWrite, send}) {
                assertEquals(0, p.a.qp.postSend(wr));
            }
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 4, 20);
            assertEquals(4, wcs.size(), "every work request completes");
            assertEquals(List.of(1L, 2L, 3L, 4L), wcs.stream().map(WorkCompletion::wrId).toList(), "post order");
            assertEquals(List.of("SUCCESS", "SUCCESS", "REMOTE_ACCESS_ERROR", "WR_FLUSH_ERROR"),
                wcs.stream().map(WorkCompletion::statusName).toList(),
                "the READ and the atomic the responder executed before the refused WRITE are answered; the WRITE carries the NAK's status");
            assertEquals(-1, MemorySegment.mismatch(p.a.mem, 0, READ_BYTES, p.b.mem, 0, READ_BYTES), "the READ's data arrived");
            assertEquals(40, p.a.mem.get(ValueLayout.JAVA_LONG, ANSWER_AT), "the atomic's original value arrived");
            assertEquals(42, p.b.mem.get(ValueLayout.JAVA_LONG, WORD_AT), "the atomic ran once");
            assertEquals(QpState.ERROR, p.a.qp.query().state());
            assertEquals(QpState.ERROR, p.b.qp.query().state(), "the responder that sent a fatal NAK is in ERROR too, as rxe");
            assertEquals(0, RcConformancePair.drain(p.b.cq, 50).stream().filter(wc -> wc.status() == WcStatus.SUCCESS).count(),
                "the SEND after the refused WRITE was never delivered");
        }
    }
}
