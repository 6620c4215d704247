package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sq_sig_all from a QpInitAttributes on a QP of an application attached to a dataplane (the SIGNALED flag in the send record). */
class QpInitAttributesAttachedTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    @Test
    void shouldCompleteEveryUnsignaledSendWithSqSigAllWhenAttached() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot());
             AttachedSrdTest.App a = new AttachedSrdTest.App(dir, 0, 0);
             AttachedSrdTest.App b = new AttachedSrdTest.App(dir, 1, 4)) {
            AddressHandle toB = a.to(b);
            for (boolean all : new boolean[] {false, true}) {
                CompletionQueue cq = a.ctx.createCq(16);
                QueuePair qp = a.pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).sendCq(cq).recvCq(a.cq).maxSendWr(8).maxRecvWr(1)
                    .sqSigAll(all).build());
                qp.modify(QpState.INIT, AttachedSrdTest.QKEY);
                qp.modify(QpState.RTR, 0);
                qp.modify(QpState.RTS, 0);
                SendWr wr = new SendWr().wrId(all ? 44 : 43).flags(0).destination(toB, b.qp.qpNum(), AttachedSrdTest.QKEY);
                wr.sge(0).set(a.mr, 0, 8);
                assertEquals(0, qp.postSend(wr.numSge(1)));
                assertEquals(WcStatus.SUCCESS, b.await().status(), "the message arrived");
                WorkCompletion[] wcs = CompletionQueue.array(4);
                int n = cq.await(wcs, all ? 1000 : 200, TimeUnit.MILLISECONDS);
                assertEquals(all ? 1 : 0, n, all ? "sq_sig_all: the send completes unasked" : "an unsignaled send makes no completion");
                if (all) {
                    assertEquals(44, wcs[0].wrId());
                }
            }
        }
    }
}
