package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rule 3 of issue 25: RNR is judged at the expected PSN only. A SEND whose packet arrives ahead of
 * a message still missing packets is not RNR-NAKed for a receive the message before it will take
 * (IB: a packet ahead of the expected PSN gets a sequence NAK); the RNR NAK that does come names
 * the request that found no receive, spends rnr_retry for it alone, and its exhaustion completes
 * that WR RNR_RETRY_EXC_ERR after the message before it completed SUCCESS — never flushed, since
 * the responder delivers it, as rxe_resp.c and rxe_comp.c handle RNR.
 */
class RcRnrTest extends ConformanceCase {
    private static final int FIRST_BYTES = 48 * 1024;

    @ParameterizedTest
    @ValueSource(longs = {2531, 2532, 2533, 2534, 2535, 2536})
    void shouldDeliverTheMessageBeforeAndFailOnlyTheOneThatFoundNoReceive(long seed) {
        try (RcConformancePair p = pair(seed, RcConformancePair.HOSTILE, 256 * 1024, ThreadingMode.INVOKER, 0)) {
            for (int i = 0; i < FIRST_BYTES; i += 8) {
                p.a.mem.set(ValueLayout.JAVA_LONG, i, seed ^ i);
            }
            RcConformancePair.postReceives(p.b, 1, 128 * 1024, FIRST_BYTES); // one receive: the first message's
            SendWr first = new SendWr().wrId(1).opcode(SendWr.OP_SEND).numSge(1);
            first.sge(0).set(p.a.mr, 0, FIRST_BYTES);
            SendWr second = new SendWr().wrId(2).opcode(SendWr.OP_SEND).numSge(1);
            second.sge(0).set(p.a.mr, 0, 8);
            SendWr third = new SendWr().wrId(3).opcode(SendWr.OP_SEND).numSge(1);
            third.sge(0).set(p.a.mr, 0, 8);
            for (SendWr wr : new SendWr[] {first, second, third}) {
                assertEquals(0, p.a.qp.postSend(wr));
            }
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 3, 20);
            assertEquals(List.of(1L, 2L, 3L), wcs.stream().map(WorkCompletion::wrId).toList());
            assertEquals(List.of("SUCCESS", "RNR_RETRY_EXCEEDED_ERROR", "WR_FLUSH_ERROR"), wcs.stream()
                    .map(WorkCompletion::statusName).toList(),
                "rnr_retry 0: the second message, which found no receive at its turn, fails; the first was delivered");
            List<WorkCompletion> rx = RcConformancePair.drain(p.b.cq, 50);
            assertEquals(1, rx.size(), "one message delivered");
            assertEquals(WcStatus.SUCCESS, rx.get(0).status());
            assertEquals(FIRST_BYTES, rx.get(0).byteLength());
            assertEquals(-1, MemorySegment.mismatch(p.a.mem, 0, FIRST_BYTES, p.b.mem, 128 * 1024, 128 * 1024 + FIRST_BYTES));
        }
    }
}
