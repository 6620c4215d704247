package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 25 rule 7 for QP numbers: a destroyed QP's number is not handed out again within the
 * window the transport keeps (a generation per table slot), so a peer still sending to the old
 * number reaches no QP: its packets are dropped and counted, and the QP made since gets nothing.
 */
class QpNumberReuseTest extends ConformanceCase {
    private static final int CYCLES = 3000;

    @Test
    void shouldNotHandADestroyedQpsNumberOutAgainSoAPeersLatePacketsAreDroppedAndCounted() {
        try (RcConformancePair p = pair(2601, LinkConfig.DEFAULT, 64 * 1024)) {
            int old = p.b.qp.qpNum();
            p.b.qp.destroy();
            QueuePair successor = null;
            for (int i = 0; i < CYCLES; i++) {
                successor = p.b.pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(p.b.cq).maxSendWr(4).maxRecvWr(4).build());
                assertNotEquals(old, successor.qpNum(), "QP " + i + " made after the destroy got the destroyed QP's number");
                if (i < CYCLES - 1) {
                    successor.destroy();
                }
            }
            successor.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(QpAttributes.ACCESS_REMOTE_WRITE));
            RecvWr r = new RecvWr();
            r.wrId(61).sge().set(p.b.mr, 0, 1024);
            assertEquals(0, successor.postRecv(r));
            long refusedBefore = p.fabric.transportCounters(p.b.ctx).get("rc_refused");

            SendWr late = new SendWr().wrId(7).opcode(SendWr.OP_SEND).numSge(1);
            late.sge(0).set(p.a.mr, 0, 64);
            assertEquals(0, p.a.qp.postSend(late), "a's QP still names b's destroyed QP");
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 1, 20);
            assertEquals(1, wcs.size(), "the late send completes");
            assertEquals(WcStatus.RETRY_EXCEEDED_ERROR, wcs.get(0).status(), wcs.get(0).statusName());
            assertTrue(p.fabric.transportCounters(p.b.ctx).get("rc_refused") > refusedBefore,
                "the packets for the old number were dropped, counted");
            assertTrue(RcConformancePair.drain(p.b.cq, 50).isEmpty(), "the QP made since got nothing");
        }
    }
}
