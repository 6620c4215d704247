package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Shared receive queues through the verbs API, on the simulated network: side a sends (its SRD QP,
 * or a UD QP made here), side b's QPs take their receives from one SRQ. SRQ receive k is
 * {@link #SIZE} bytes at k × SIZE of b's registered buffer (the pair's own receives lie above).
 */
class VerbsSrqSimTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final int SIZE = 256;

    static VerbsPair pair(SimWorld w) {
        return new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), QpType.SRD, 4, SIZE);
    }

    static QueuePair rts(QueuePair qp) {
        qp.modify(QpState.INIT, VerbsPair.QKEY);
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        return qp;
    }

    static QueuePair onSrq(VerbsPair.Side side, QpType type, SharedReceiveQueue srq) {
        return rts(side.pd.createQueuePair(QpInitAttributes.builder(type).cq(side.cq).srq(srq).maxSendWr(64).build()));
    }

    /** Posts SRQ receives with wr ids {@code first} .. {@code first + n - 1} (receive k at k × SIZE); returns the last post's result. */
    static int post(VerbsPair.Side side, SharedReceiveQueue srq, int first, int n) {
        RecvWr r = new RecvWr();
        int rc = 0;
        for (int k = first; k < first + n && rc == 0; k++) {
            r.wrId(k).sge().set(side.mr, (long) (k % 16) * SIZE, SIZE);
            rc = srq.postSrqRecv(r);
        }
        return rc;
    }

    /** Sends {@code length} bytes from {@code from} (side a) to QP {@code to}, and returns its send completion's status. */
    static int send(VerbsPair p, QueuePair from, QueuePair to, long wrId, int length) {
        SendWr wr = new SendWr().wrId(wrId).destination(p.sa.toPeer, to.qpNum(), VerbsPair.QKEY).numSge(1);
        wr.sge(0).set(p.sa.mr, 0, length);
        assertEquals(0, from.postSend(wr));
        assertEquals(1, p.sa.cq.await(p.sa.wcs, 10, TimeUnit.MILLISECONDS), "the send completes");
        return p.sa.wcs[0].status();
    }

    /** The next receive completion on side b. */
    static WorkCompletion received(VerbsPair p) {
        assertEquals(1, p.sb.cq.await(p.sb.wcs, 10, TimeUnit.MILLISECONDS), "a receive completes");
        return p.sb.wcs[0];
    }

    @Test
    void shouldShareOneSrqBetweenAnSrdAndAUdQpInPostingOrder() {
        try (SimWorld w = new SimWorld(21); VerbsPair p = pair(w)) {
            SharedReceiveQueue srq = p.sb.pd.createSrq(8, 1, 0);
            QueuePair srd = onSrq(p.sb, QpType.SRD, srq);
            QueuePair ud = onSrq(p.sb, QpType.UD, srq);
            QueuePair udSender = rts(p.sa.pd.createQueuePair(QpInitAttributes.builder(QpType.UD).cq(p.sa.cq)
                .maxSendWr(64).maxRecvWr(1).build()));
            assertEquals(0, post(p.sb, srq, 0, 8));
            for (int i = 0; i < 4; i++) {
                boolean toSrd = i % 2 == 0;
                QueuePair to = toSrd ? srd : ud;
                assertEquals(WcStatus.SUCCESS, send(p, toSrd ? p.sa.qp : udSender, to, i, 16));
                WorkCompletion wc = received(p);
                assertEquals(i, wc.wrId(), "taken in posting order, whichever QP the message came to");
                assertEquals(to.qpNum(), wc.qpNum(), "the completion names the QP, not the SRQ");
                assertEquals(WcOpcode.RECV, wc.opcode());
            }
            assertEquals(4, srq.receivesPosted());
        }
    }

    @Test
    void shouldReturnEnomemForAReceiveBeyondTheSrqsMaxWr() {
        try (SimWorld w = new SimWorld(21); VerbsPair p = pair(w)) {
            SharedReceiveQueue srq = p.sb.pd.createSrq(8, 1, 0);
            QueuePair srd = onSrq(p.sb, QpType.SRD, srq);
            assertEquals(0, post(p.sb, srq, 0, 8));
            assertEquals(QueuePair.ENOMEM, post(p.sb, srq, 8, 1), "max_wr receives are waiting");
            for (int i = 0; i < 4; i++) {
                assertEquals(WcStatus.SUCCESS, send(p, p.sa.qp, srd, i, 16));
                received(p);
            }
            assertEquals(0, post(p.sb, srq, 8, 4), "room again for the 4 receives taken");
            assertEquals(QueuePair.ENOMEM, post(p.sb, srq, 12, 1));
        }
    }

    @Test
    void shouldDeliverSrqLimitReachedThroughTheContextOnceUntilRearmed() {
        try (SimWorld w = new SimWorld(22); VerbsPair p = pair(w)) {
            SharedReceiveQueue srq = p.sb.pd.createSrq(8, 1, 3);
            QueuePair qp = onSrq(p.sb, QpType.SRD, srq);
            post(p.sb, srq, 0, 4);
            send(p, p.sa.qp, qp, 1, 8); // 3 left: at the limit
            assertNull(p.b.pollAsyncEvent());
            send(p, p.sa.qp, qp, 2, 8); // 2 left: below
            AsyncEventQueue.AsyncEvent e = p.b.pollAsyncEvent();
            assertEquals(AsyncEventQueue.SRQ_LIMIT_REACHED, e.type());
            assertEquals(srq.srqNum(), e.srqn());
            assertEquals(0, srq.limit(), "disarmed once raised");
            send(p, p.sa.qp, qp, 3, 8);
            assertNull(p.b.pollAsyncEvent(), "once, until re-armed");
            srq.modify(2);
            assertEquals(2, srq.limit());
            send(p, p.sa.qp, qp, 4, 8);
            assertEquals(srq.srqNum(), p.b.pollAsyncEvent().srqn(), "re-armed, raised again");
            assertNull(p.b.pollAsyncEvent());
        }
    }

    @Test
    void shouldAnswerRnrForAnEmptySrq() {
        try (SimWorld w = new SimWorld(23); VerbsPair p = pair(w)) {
            SharedReceiveQueue srq = p.sb.pd.createSrq(4, 1, 0);
            QueuePair qp = onSrq(p.sb, QpType.SRD, srq);
            assertEquals(WcStatus.RNR_ERROR, send(p, p.sa.qp, qp, 1, 8), "no receive in the SRQ, rnr_retry 0");
            assertEquals(0, p.sb.cq.poll(p.sb.wcs), "no receive completion");
        }
    }

    @Test
    void shouldAnswerRemoteOperationErrorForAMessageLongerThanTheSrqsReceiveTakingNothing() {
        try (SimWorld w = new SimWorld(23); VerbsPair p = pair(w)) {
            SharedReceiveQueue srq = p.sb.pd.createSrq(4, 1, 0);
            QueuePair qp = onSrq(p.sb, QpType.SRD, srq);
            RecvWr small = new RecvWr().wrId(7);
            small.sge().set(p.sb.mr, 0, 16);
            assertEquals(0, srq.postSrqRecv(small));
            assertEquals(WcStatus.REMOTE_OPERATION_ERROR, send(p, p.sa.qp, qp, 2, 17));
            assertEquals(0, p.sb.cq.poll(p.sb.wcs), "no receive completion");
            assertEquals(1, srq.receivesPosted(), "the receive is still there");
            assertEquals(WcStatus.SUCCESS, send(p, p.sa.qp, qp, 3, 16));
            assertEquals(7, received(p).wrId());
        }
    }

    @Test
    void shouldKeepTheSrqsReceivesForTheOtherQpWhenOneGoesToError() {
        try (SimWorld w = new SimWorld(24); VerbsPair p = pair(w)) {
            SharedReceiveQueue srq = p.sb.pd.createSrq(4, 1, 0);
            QueuePair failing = onSrq(p.sb, QpType.SRD, srq);
            QueuePair other = onSrq(p.sb, QpType.SRD, srq);
            post(p.sb, srq, 0, 3);
            failing.modify(QpState.ERROR, 0);
            assertEquals(0, p.sb.cq.poll(p.sb.wcs), "no flushed receives: they are the SRQ's");
            assertEquals(3, srq.receivesPosted());
            assertEquals(WcStatus.SUCCESS, send(p, p.sa.qp, other, 1, 8));
            assertEquals(0, received(p).wrId());
            assertEquals(0, post(p.sb, srq, 3, 2), "the count stays right: 2 left + 2 = max_wr");
            assertEquals(QueuePair.ENOMEM, post(p.sb, srq, 5, 1));
        }
    }

    @Test
    void shouldRefuseMisuseWithClearErrors() {
        try (SimWorld w = new SimWorld(25); VerbsPair p = pair(w)) {
            ProtectionDomain pd = p.sb.pd;
            assertThrows(VerbsException.class, () -> pd.createSrq(8, 2, 0), "one SGE per receive");
            assertThrows(VerbsException.class, () -> pd.createSrq(8, 1, 9), "limit above max_wr");
            assertThrows(VerbsException.class, () -> pd.createSrq(0, 1, 0));
            assertEquals(1, p.b.queryDevice().maxSrqSge());
            SharedReceiveQueue srq = pd.createSrq(8, 1, 0);
            assertThrows(VerbsException.class, () -> srq.modify(9));
            QueuePair qp = onSrq(p.sb, QpType.SRD, srq);
            RecvWr r = new RecvWr().wrId(1);
            r.sge().set(p.sb.mr, 0, SIZE);
            VerbsException direct = assertThrows(VerbsException.class, () -> qp.postRecv(r));
            assertTrue(direct.getMessage().contains("postSrqRecv"), direct.getMessage());
            r.sge().set(p.sb.mr.segment(), 0, SIZE, p.sb.mr.lkey() ^ 1);
            assertThrows(VerbsException.class, () -> srq.postSrqRecv(r), "a wrong lkey");
            MemoryRegion readOnly = pd.registerMemory(p.arena.allocate(SIZE), Access.REMOTE_READ);
            r.sge().set(readOnly, 0, SIZE);
            assertThrows(VerbsException.class, () -> srq.postSrqRecv(r), "a region without LOCAL_WRITE");
            r.sge().set(p.sa.mr, 0, SIZE);
            assertThrows(VerbsException.class, () -> srq.postSrqRecv(r), "another PD's region");
            assertThrows(VerbsException.class, () -> p.sa.pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(p.sa.cq).srq(srq)
                .maxSendWr(8).build()),
                "an SRQ of another context");
            VerbsException inUse = assertThrows(VerbsException.class, srq::destroy);
            assertTrue(inUse.getMessage().contains("still used by 1 QP"), inUse.getMessage());
            readOnly.deregister();
            p.sb.qp.destroy();
            p.sb.mr.deregister();
            p.sb.toPeer.destroy();
            qp.destroy();
            VerbsException pdBusy = assertThrows(VerbsException.class, pd::destroy);
            assertTrue(pdBusy.getMessage().contains("1 SRQ(s)"), pdBusy.getMessage());
            srq.destroy();
            assertThrows(VerbsException.class, () -> srq.postSrqRecv(r), "destroyed");
            pd.destroy();
        }
    }

    /** A context whose dataplane runs on its own thread (real time; nothing it sends is ever delivered). */
    static Context dedicated(SimNetwork network) {
        return Context.open(Device.of("dedicated", network.addHost(SimWorld.macOf(1)), System::nanoTime),
            new ContextConfig().mode(ThreadingMode.DEDICATED));
    }

    @Test
    void shouldCountSrqReceivesAcrossThreadsInDedicatedMode() {
        try (SimNetwork network = new SimNetwork(26); Context c = dedicated(network)) {
            ProtectionDomain pd = c.allocPd();
            MemoryRegion mr = pd.registerMemory(Arena.ofAuto().allocate(4L * SIZE), Access.LOCAL_WRITE);
            SharedReceiveQueue srq = pd.createSrq(4, 1, 0);
            CompletionQueue cq = c.createCq(16);
            QueuePair qp = rts(pd.createQueuePair(QpInitAttributes.builder(QpType.UD).cq(cq).srq(srq).maxSendWr(8).build()));
            RecvWr r = new RecvWr();
            for (int k = 0; k < 4; k++) {
                r.wrId(k).sge().set(mr, (long) k * SIZE, SIZE);
                assertEquals(0, srq.postSrqRecv(r));
            }
            assertEquals(QueuePair.ENOMEM, srq.postSrqRecv(r));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (c.dataplane().call(EmbeddedProvider.transportSrq(srq)::receivesPosted) < 4 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait(); // the agent drains the posts after the commands of its cycle
            }
            assertEquals(4, (int) c.dataplane().call(EmbeddedProvider.transportSrq(srq)::receivesPosted),
                    "every post reached the dataplane's SRQ");
            assertEquals(QueuePair.ENOMEM, srq.postSrqRecv(r), "and they still count");
            assertThrows(VerbsException.class, srq::destroy, "refused on the agent thread, reported here");
            qp.destroy();
            srq.destroy();
        }
    }

    @Test
    void shouldDropAReceivePostedJustBeforeItsSrqWasDestroyed() throws InterruptedException {
        try (SimNetwork network = new SimNetwork(27); Context c = dedicated(network)) {
            ProtectionDomain pd = c.allocPd();
            MemoryRegion mr = pd.registerMemory(Arena.ofAuto().allocate(SIZE), Access.LOCAL_WRITE);
            SharedReceiveQueue srq = pd.createSrq(4, 1, 0);
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            // The agent runs a cycle's commands before its posts: hold it inside a destroy while a receive is posted.
            Thread destroyer = new Thread(() -> c.dataplane().call(() -> {
                running.countDown();
                release.await();
                EmbeddedProvider.transportSrq(srq).destroy();
                return null;
            }));
            destroyer.start();
            running.await();
            RecvWr r = new RecvWr().wrId(1);
            r.sge().set(mr, 0, SIZE);
            assertEquals(0, srq.postSrqRecv(r), "into the ring, drained after the destroy");
            release.countDown();
            destroyer.join();
            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> c.dataplane().call(() -> null), "the agent thread lives on");
            assertEquals(0, (int) c.dataplane().call(EmbeddedProvider.transportSrq(srq)::receivesPosted));
        }
    }
}
