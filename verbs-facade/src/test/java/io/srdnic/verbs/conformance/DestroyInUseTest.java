package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rule 9 of issue 25: destroying what a live object still uses fails (EBUSY, as
 * {@code ibv_destroy_cq}, {@code ibv_dealloc_pd} do) and changes nothing; once the user is gone
 * the destroy goes through. Attached, the dataplane refuses the same: AttachedReuseTest#shouldRefuseToDestroyACqAQpStillCompletesInto.
 */
class DestroyInUseTest extends ConformanceCase {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @Test
    void shouldRefuseToDestroyACqAQpCompletesIntoAndKeepItWorking() {
        try (RcConformancePair p = pair(2591, LinkConfig.DEFAULT, 16 * 1024)) {
            VerbsException busy = assertThrows(VerbsException.class, () -> p.a.cq.destroy());
            assertTrue(busy.getMessage().contains("EBUSY"), busy.getMessage());
            SendWr write = new SendWr().wrId(9).opcode(SendWr.OP_RDMA_WRITE).rdma(p.b.mem.address(), p.b.mr.rkey()).numSge(1);
            write.sge(0).set(p.a.mr, 0, 64);
            assertEquals(0, p.a.qp.postSend(write));
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 1, 10);
            assertEquals(1, wcs.size(), "the CQ still takes the QP's completions");
            assertTrue(wcs.get(0).ok());
            VerbsException pdBusy = assertThrows(VerbsException.class, () -> p.a.pd.destroy());
            assertTrue(pdBusy.getMessage().contains("EBUSY"), pdBusy.getMessage());

            CompletionQueue spare = p.a.ctx.createCq(16);
            QueuePair user = p.a.pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(spare).maxSendWr(4).maxRecvWr(4).build());
            assertThrows(VerbsException.class, spare::destroy);
            user.destroy();
            spare.destroy(); // its last user gone: no longer busy
            assertEquals(QpState.RTS, p.a.qp.query().state());
        }
    }
}
