package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rule 8 of issue 25: modify-QP attributes take effect. SQD → SQD with a new address vector (the
 * kernel's qp_state_table allows IB_QP_AV there) changes where the QP sends from the next SQD → RTS
 * on: here the new path leads to an address no host has (the network drops what goes there), so the
 * next SEND never reaches the old peer and fails RETRY_EXCEEDED, as on an HCA whose path was moved.
 * Against either provider (the attached one: {@code AttachedRcModifyTakesEffectTest}).
 */
class RcModifyTakesEffectTest extends ConformanceCase {
    /** A MAC and an IPv4 address no host of the fabric has. */
    private static final long NOWHERE_MAC = 0x02_5E_00_00_0B_0BL;
    private static final int NOWHERE_IP = 0x0A_63_63_63; // 10.99.99.99

    @Test
    void shouldSendToTheNewAddressVectorAfterSqdToSqdAndBackToRts() {
        try (RcConformancePair p = pair(2581, LinkConfig.DEFAULT, 16 * 1024)) {
            RcConformancePair.postReceives(p.b, 2, 4096, 1024);
            SendWr send = new SendWr().wrId(1).opcode(SendWr.OP_SEND).numSge(1);
            send.sge(0).set(p.a.mr, 0, 64);
            assertEquals(0, p.a.qp.postSend(send));
            assertEquals(WcStatus.SUCCESS, RcConformancePair.await(p.a.cq, 1, 10).get(0).status(), "the old path works");
            assertEquals(1, RcConformancePair.await(p.b.cq, 1, 10).size());

            p.a.qp.modify(new QpAttributes().state(QpState.SQD));
            assertFalse(p.a.qp.query().sqDraining());
            AddressHandle moved = p.a.pd.createAddressHandle(NOWHERE_MAC, NOWHERE_IP, p.b.ctx.udpPort());
            p.a.qp.modify(new QpAttributes().state(QpState.SQD).addressHandle(moved.handle()).retryCnt(1).timeout(8));
            p.a.qp.modify(new QpAttributes().state(QpState.RTS));

            send.wrId(2);
            assertEquals(0, p.a.qp.postSend(send));
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 1, 20);
            assertEquals(1, wcs.size());
            assertEquals(WcStatus.RETRY_EXCEEDED_ERROR, wcs.get(0).status(), "sent along the new path, where no QP answers: "
                + wcs.get(0).statusName());
            assertEquals(0, RcConformancePair.drain(p.b.cq, 20).size(), "nothing more reached the old peer");
        }
    }
}
