package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The verbs state machine through the API: modify with attributes, query, SQD and SQ_DRAINED, RC not yet. */
class VerbsQpStateTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @Test
    void shouldQueryBackTheAttributesAModifySet() {
        try (SimWorld w = new SimWorld(11); Context a = Context.open(Device.sim(w))) {
            ProtectionDomain pd = a.allocPd();
            CompletionQueue cq = a.createCq(16);
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(4).maxRecvWr(4).build());
            QpAttributes attr = new QpAttributes();
            VerbsException missing = assertThrows(VerbsException.class, () ->
                    qp.modify(attr.clear().state(QpState.INIT).port(1).pkeyIndex(0)));
            assertTrue(missing.getMessage().contains("missing qkey"), missing.getMessage());
            qp.modify(attr.clear().state(QpState.INIT).port(1).pkeyIndex(0).qkey(0x5151));
            qp.modify(attr.clear().state(QpState.RTR));
            VerbsException notTaken = assertThrows(VerbsException.class, () ->
                    qp.modify(attr.clear().state(QpState.RTS).sqPsn(0).retryCnt(7)));
            assertTrue(notTaken.getMessage().contains("does not take retryCnt"), notTaken.getMessage());
            qp.modify(attr.clear().state(QpState.RTS).sqPsn(0).rnrRetry(3));
            assertEquals(QpState.RTS, qp.state());

            QpAttributes q = qp.query();
            assertEquals(QpState.RTS, q.state());
            assertEquals(0x5151, q.qkey());
            assertEquals(3, q.rnrRetry(), "SRD takes rnr_retry on RTR -> RTS, as EFA's does");
            assertEquals(1, q.port());
            VerbsException illegal = assertThrows(VerbsException.class, () -> qp.modify(attr.clear().state(QpState.RTR)));
            assertTrue(illegal.getMessage().contains("illegal transition RTS -> RTR"), illegal.getMessage());
        }
    }

    @Test
    void shouldDrainTheSendQueueInSqd() {
        try (SimWorld w = new SimWorld(12); VerbsPair p = VerbsSimTest.pair(w, QpType.SRD)) {
            SendWr wr = new SendWr().destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
            wr.sge(0).set(p.sa.mr, 0, 64);
            for (int i = 0; i < 8; i++) {
                assertEquals(0, p.sa.qp.postSend(wr.wrId(i)));
            }
            p.sa.qp.modify(new QpAttributes().state(QpState.SQD).sqDrainedNotify(true));
            VerbsException refused = assertThrows(VerbsException.class, () -> p.sa.qp.postSend(wr.wrId(100)));
            assertTrue(refused.getMessage().contains("SQD"), refused.getMessage());

            AsyncEventQueue.AsyncEvent e = p.a.awaitAsyncEvent(100, TimeUnit.MILLISECONDS);
            assertEquals("SQ_DRAINED", e.typeName());
            assertEquals(p.sa.qp.qpNum(), e.qpn());
            int done = 0;
            for (int i = 0; i < 10 && done < 8; i++) {
                int n = p.sa.cq.poll(p.sa.wcs, 64);
                for (int j = 0; j < n; j++) {
                    assertEquals(WcStatus.SUCCESS, p.sa.wcs[j].status());
                }
                done += n;
            }
            assertEquals(8, done, "every send posted before SQD completed before SQ_DRAINED");
            assertTrue(!p.sa.qp.query().sqDraining());

            p.sa.qp.modify(QpState.RTS, 0);
            assertEquals(0, p.sa.qp.postSend(wr.wrId(200)), "SQD -> RTS resumes");
        }
    }

    @Test
    void shouldCreateAnRcQueuePairWhoseSendsWaitForRts() {
        try (SimWorld w = new SimWorld(13); Context a = Context.open(Device.sim(w))) {
            ProtectionDomain pd = a.allocPd();
            CompletionQueue cq = a.createCq(16);
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(4).maxRecvWr(4).build());
            assertEquals(QpType.RC, qp.type());
            SendWr wr = new SendWr().wrId(1).opcode(SendWr.OP_SEND);
            VerbsException e = assertThrows(VerbsException.class, () -> qp.postSend(wr));
            assertTrue(e.getMessage().contains("sends need RTS"), e.getMessage());
            qp.destroy();
            pd.destroy();
        }
    }
}
