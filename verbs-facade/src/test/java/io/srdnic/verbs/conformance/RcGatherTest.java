package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Rule 5 of issue 25: a SEND gathered from several SGEs is the same message as one SGE of the same
 * bytes, up to the QP type's maximum message size (RC: 1 GiB), as {@code ibv_post_send} with
 * num_sge > 1 is on any provider (rdma-core {@code tests/utils.py}'s multi-SGE traffic).
 */
class RcGatherTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @Test
    @Disabled("rule 5: an RC SEND gathered from several SGEs totalling more than the MTU completes LOCAL_PROTECTION_ERROR"
        + " (QueuePair.postSend gathers only into MTU-sized staging slots and hands the transport a null buffer beyond that);"
        + " and DeviceAttributes has one maxMessageSize (the MTU) where RC's is 1 GiB")
    void shouldDeliverAGatheredSendLongerThanTheMtuAsOneMessage() {
        try (RcConformancePair p = new RcConformancePair(2551, LinkConfig.DEFAULT, 64 * 1024)) {
            for (int i = 0; i < 16 * 1024; i += 8) {
                p.a.mem.set(ValueLayout.JAVA_LONG, i, 0x2555L * i);
            }
            RcConformancePair.postReceives(p.b, 1, 32 * 1024, 16 * 1024);
            SendWr send = new SendWr(3).wrId(1).opcode(SendWr.OP_SEND).numSge(3);
            send.sge(0).set(p.a.mr, 0, 3000);
            send.sge(1).set(p.a.mr, 3000, 3000);
            send.sge(2).set(p.a.mr, 6000, 3000);
            assertEquals(0, p.a.qp.postSend(send));
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 1, 10);
            assertEquals("SUCCESS", wcs.get(0).statusName());
            List<WorkCompletion> rx = RcConformancePair.await(p.b.cq, 1, 10);
            assertEquals(9000, rx.get(0).byteLength());
            assertEquals(-1, MemorySegment.mismatch(p.a.mem, 0, 9000, p.b.mem, 32 * 1024, 32 * 1024 + 9000));
        }
    }
}
