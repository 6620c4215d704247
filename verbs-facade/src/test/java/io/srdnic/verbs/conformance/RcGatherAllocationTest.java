package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Rule 5's gather path keeps the hot-path rule: once warm, an RC SEND gathered from three SGEs
 * into a message of several packets — its post, the copy of its SGE list into the send-queue
 * slot, segmentation walking it, the receive and both completions — allocates nothing on the
 * thread that runs both transports (INVOKER).
 */
class RcGatherAllocationTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int PIECE = 1500;
    private static final int MESSAGES = 2_000;

    @Test
    void shouldAllocateNothingPerGatheredSendOnceWarm() {
        try (RcConformancePair p = new RcConformancePair(2560, LinkConfig.DEFAULT, 64 * 1024)) {
            SendWr send = new SendWr(3).opcode(SendWr.OP_SEND).numSge(3).flags(SendWr.SIGNALED);
            send.sge(0).set(p.a.mr, 0, PIECE);
            send.sge(1).set(p.a.mr, 2 * PIECE, PIECE);
            send.sge(2).set(p.a.mr, 4 * PIECE, PIECE);
            RecvWr recv = new RecvWr();
            recv.sge().set(p.b.mr, 32 * 1024, 16 * 1024);
            WorkCompletion[] wcs = CompletionQueue.array(4);
            long[] perRound = new long[4];
            for (int round = 0; round < perRound.length; round++) { // the first rounds warm up (JIT, pools)
                long before = THREADS.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < MESSAGES; i++) {
                    recv.wrId(i);
                    assertEquals(0, p.b.qp.postRecv(recv));
                    send.wrId(i);
                    assertEquals(0, p.a.qp.postSend(send));
                    awaitOne(p.a.cq, wcs);
                    awaitOne(p.b.cq, wcs);
                    assertEquals(3 * PIECE, wcs[0].byteLength());
                }
                perRound[round] = THREADS.getCurrentThreadAllocatedBytes() - before;
            }
            long last = Math.min(perRound[2], perRound[3]);
            assertTrue(last < MESSAGES, "allocated " + last + " B for " + MESSAGES + " gathered SENDs (rounds: "
                + Arrays.toString(perRound) + ")");
        }
    }

    private static void awaitOne(CompletionQueue cq, WorkCompletion[] wcs) {
        for (int i = 0; i < 10_000; i++) {
            if (cq.await(wcs, 1, TimeUnit.MILLISECONDS) == 1) {
                assertEquals("SUCCESS", wcs[0].statusName());
                return;
            }
        }
        throw new AssertionError("no completion");
    }
}
