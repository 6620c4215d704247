package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.AttachedSrdTest.App;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A shared receive queue on an attached context: its receive ring, its limit event, and its reclaim with the client. */
class AttachedSrqTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    /** What {@link #afterTwoSendsToAnSrq} hands its check: b's context, its SRQ (limit 3, armed), the QP on it, and their CQ. */
    private interface SrqCheck {
        void check(Context b, SharedReceiveQueue srq, QueuePair qp, CompletionQueue cq, MemoryRegion mr) throws Exception;
    }

    /**
     * An attached context b with an SRD QP on an SRQ of four receives (its limit armed at 3), and
     * an attached app a that sends it two messages, both acknowledged; then {@code then}.
     */
    private void afterTwoSendsToAnSrq(SrqCheck then) throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 0);
             Context b = Context.open(Device.attached(dir), new ContextConfig().attachedPort(1).attachedPoolBytes(1 << 20)
                 .attachedRingBytes(1 << 20))) {
            ProtectionDomain pd = b.allocPd();
            CompletionQueue cq = b.createCq(64);
            MemoryRegion mr = pd.allocateRegion(4096, Access.LOCAL_WRITE);
            SharedReceiveQueue srq = pd.createSrq(16, 1, 0);
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).srq(srq).maxSendWr(16).build());
            qp.modify(QpState.INIT, AttachedSrdTest.QKEY);
            qp.modify(QpState.RTR, 0);
            qp.modify(QpState.RTS, 0);
            assertThrows(VerbsException.class, () -> qp.postRecv(new RecvWr()), "its receives are the SRQ's");
            RecvWr r = new RecvWr();
            for (int i = 0; i < 4; i++) {
                r.wrId(10 + i).sge().set(mr, i * 256L, 256);
                assertEquals(0, srq.postSrqRecv(r));
            }
            srq.modify(3);
            AddressHandle toB = a.pd.createAddressHandle(b.mac(), b.ip(), b.udpPort());
            for (int i = 0; i < 2; i++) {
                a.mr.segment().setString(0, "to the srq " + i);
                SendWr wr = new SendWr().wrId(i).destination(toB, qp.qpNum(), AttachedSrdTest.QKEY);
                wr.sge(0).set(a.mr, 0, 14);
                assertEquals(0, a.qp.postSend(wr.numSge(1)));
                assertEquals(WcStatus.SUCCESS, a.await().status());
            }
            then.check(b, srq, qp, cq, mr);
        }
    }

    @Test
    void shouldDeliverIntoAnAttachedSrqInPostingOrder() throws Exception {
        afterTwoSendsToAnSrq((b, srq, qp, cq, mr) -> {
            WorkCompletion[] wcs = CompletionQueue.array(1);
            for (int i = 0; i < 2; i++) {
                assertEquals(1, cq.await(wcs, 1, TimeUnit.SECONDS));
                assertEquals(WcStatus.SUCCESS, wcs[0].status());
                assertEquals(qp.qpNum(), wcs[0].qpNum(), "the completion names the QP that took the receive");
                assertEquals(10 + i, wcs[0].wrId(), "the SRQ's receives in posting order");
                assertEquals("to the srq " + i, mr.segment().getString((wcs[0].wrId() - 10) * 256));
            }
            assertEquals(2, srq.receivesPosted());
        });
    }

    @Test
    void shouldRaiseAnAttachedSrqsLimitEventOnce() throws Exception {
        afterTwoSendsToAnSrq((b, srq, qp, cq, mr) -> {
            AsyncEventQueue.AsyncEvent e = awaitEvent(b);
            assertEquals(AsyncEventQueue.SRQ_LIMIT_REACHED, e.type());
            assertEquals(srq.srqNum(), e.srqn());
            assertEquals(0, srq.limit(), "disarmed once raised");
        });
    }

    @Test
    void shouldRefuseToDestroyAnAttachedSrqAQpUses() throws Exception {
        afterTwoSendsToAnSrq((b, srq, qp, cq, mr) -> {
            VerbsException busy = assertThrows(VerbsException.class, srq::destroy, "refused while a QP uses it");
            assertNotNull(busy.getMessage());
            qp.destroy();
            srq.destroy();
        });
    }

    @Test
    void shouldReclaimAKilledClientsSrqAfterItsQps() {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot())) {
            Context b = Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(1 << 20).attachedRingBytes(1 << 20));
            ProtectionDomain pd = b.allocPd();
            CompletionQueue cq = b.createCq(8);
            SharedReceiveQueue srq = pd.createSrq(8, 1, 0);
            pd.createQueuePair(QpInitAttributes.builder(QpType.UD).cq(cq).srq(srq).maxSendWr(8).build());
            b.session().dieForTest();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (w.counter("clients_reclaimed") < 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(4, w.counter("objects_reclaimed"), "its QP, SRQ, CQ and PD, the QP first (an SRQ in use is not destroyed)");
        }
    }

    private static AsyncEventQueue.AsyncEvent awaitEvent(Context c) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        AsyncEventQueue.AsyncEvent e;
        while ((e = c.pollAsyncEvent()) == null && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertNotNull(e, "an async event within 5 s");
        return e;
    }
}
