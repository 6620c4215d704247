package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A QP made from a QpInitAttributes (ibv_qp_init_attr's shape), on the simulated network. */
class QpInitAttributesTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }


    /** An SRD QP of {@code p}'s side a, sending on its own CQ, in RTS. */
    private static QueuePair sender(VerbsPair p, CompletionQueue cq, boolean sqSigAll) {
        QueuePair qp = p.sa.pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).sendCq(cq).recvCq(p.sa.cq).maxSendWr(8).maxRecvWr(1)
            .sqSigAll(sqSigAll).build());
        qp.modify(QpState.INIT, VerbsPair.QKEY);
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        return qp;
    }

    /** Sends one unsignaled message from {@code qp} to side b; returns the sends that completed on {@code cq} once b has it. */
    private static int unsignaledSend(VerbsPair p, QueuePair qp, CompletionQueue cq, long wrId) {
        SendWr wr = new SendWr().wrId(wrId).flags(0).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY);
        wr.sge(0).set(p.sa.mr, 0, 8);
        assertEquals(0, qp.postSend(wr.numSge(1)));
        assertEquals(1, p.sb.cq.await(p.sb.wcs, 1, TimeUnit.MILLISECONDS), "the message arrived");
        WorkCompletion[] wcs = CompletionQueue.array(4);
        int n = 0;
        for (int i = 0; i < 50; i++) { // the ACK comes a little after the message: let it, and any completion, come
            n += cq.poll(wcs);
            p.a.progress();
        }
        if (n > 0) {
            assertEquals(wrId, wcs[0].wrId());
            assertEquals(WcStatus.SUCCESS, wcs[0].status());
        }
        return n;
    }

    @Test
    void shouldCompleteEveryUnsignaledSendWithSqSigAll() {
        try (SimWorld w = new SimWorld(1); VerbsPair p = VerbsSimTest.pair(w, QpType.SRD)) {
            CompletionQueue cq = p.a.createCq(16);
            assertEquals(1, unsignaledSend(p, sender(p, cq, true), cq, 41), "sq_sig_all: the send completes unasked");
        }
    }

    @Test
    void shouldCompleteNoUnsignaledSendWithoutSqSigAll() {
        try (SimWorld w = new SimWorld(1); VerbsPair p = VerbsSimTest.pair(w, QpType.SRD)) {
            CompletionQueue cq = p.a.createCq(16);
            assertEquals(0, unsignaledSend(p, sender(p, cq, false), cq, 42), "an unsignaled send makes no completion");
        }
    }

    @Test
    void shouldRefuseWhatNoQpOfTheShapeTakes() {
        try (SimWorld w = new SimWorld(1); Context c = Context.open(Device.sim(w))) {
            CompletionQueue cq = c.createCq(8);
            SharedReceiveQueue srq = c.allocPd().createSrq(8, 1, 0);
            assertThrows(VerbsException.class, () -> QpInitAttributes.builder(QpType.SRC), "SRC comes in its XRC shapes");
            assertThrows(VerbsException.class, () -> QpInitAttributes.builder(QpType.SRD).recvCq(cq).maxSendWr(1).maxRecvWr(1).build(),
                "no send CQ");
            assertThrows(VerbsException.class, () -> QpInitAttributes.builder(QpType.SRD).cq(cq).srq(srq).maxSendWr(1).maxRecvWr(4).build(),
                "a QP on an SRQ has no max_recv_wr");
            assertThrows(VerbsException.class, () -> QpInitAttributes.xrcSend(cq).recvCq(cq).maxSendWr(1).build(),
                "XRC_SEND has no receive side");
            VerbsException deep = assertThrows(VerbsException.class, () -> c.allocPd().createQueuePair(
                QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(Context.MAX_QP_WR + 1).maxRecvWr(1).build()));
            assertTrue(deep.getMessage().contains("queue depths"), deep.getMessage());
        }
    }

    @Test
    void shouldMakeEveryShapeFromOneCreateCall() {
        try (SimWorld w = new SimWorld(1); Context c = Context.open(Device.sim(w))) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(8);
            SharedReceiveQueue srq = pd.createSrq(8, 1, 0);
            XrcDomain xrcd = c.openXrcDomain();
            QueuePair rc = pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(4).maxRecvWr(4).maxInlineData(64)
                .build());
            QueuePair onSrq = pd.createQueuePair(QpInitAttributes.builder(QpType.UD).cq(cq).srq(srq).maxSendWr(4).build());
            QueuePair send = pd.createQueuePair(QpInitAttributes.xrcSend(cq).maxSendWr(4).build());
            QueuePair recv = pd.createQueuePair(QpInitAttributes.xrcRecv(xrcd).build());
            assertEquals(QpType.RC, rc.type());
            assertEquals(QpType.UD, onSrq.type());
            VerbsException own = assertThrows(VerbsException.class, () -> onSrq.postRecv(new RecvWr()));
            assertTrue(own.getMessage().contains("SRQ"), own.getMessage());
            assertEquals(XrcQpType.XRC_SEND, send.xrcType());
            assertEquals(XrcQpType.XRC_RECV, recv.xrcType());
            assertTrue(rc.qpNum() != onSrq.qpNum() && send.qpNum() != recv.qpNum());
        }
    }
}
