package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.attach.CompletionRecord;
import io.srdnic.verbs.attach.SharedLayout;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.DestroyRequest;
import io.srdnic.verbs.attach.control.ModifyQpRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Attached contexts on a dataplane serving two simulated hosts: the verbs API unchanged, over the socket and shared rings. */
class AttachedSrdTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final int QKEY = 0x22;

    @TempDir
    Path dir;

    /** One attached application: a context on {@code port} with an SRD QP in RTS, a pool region and receives posted. */
    static final class App implements AutoCloseable {
        final Context ctx;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion mr;
        final WorkCompletion[] wcs = CompletionQueue.array(16);

        App(Path dir, int port, int receives) {
            ctx = Context.open(Device.attached(dir), new ContextConfig().attachedPort(port).attachedPoolBytes(1 << 20)
                .attachedRingBytes(1 << 20));
            pd = ctx.allocPd();
            cq = ctx.createCq(256);
            qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq)
                .maxSendWr(64).maxRecvWr(64).maxSendSge(2).maxInlineData(64).build());
            mr = pd.allocateRegion(64 * 1024, Access.LOCAL_WRITE);
            qp.modify(QpState.INIT, QKEY);
            qp.modify(QpState.RTR, 0);
            qp.modify(QpState.RTS, 0);
            RecvWr r = new RecvWr();
            for (int i = 0; i < receives; i++) {
                r.wrId(100 + i).sge().set(mr, 1024 + i * 256L, 256);
                assertEquals(0, qp.postRecv(r));
            }
        }

        AddressHandle to(App peer) {
            return pd.createAddressHandle(peer.ctx.mac(), peer.ctx.ip(), peer.ctx.udpPort());
        }

        int send(AddressHandle ah, App peer, long wrId, String text) {
            mr.segment().setString(0, text);
            SendWr wr = new SendWr().wrId(wrId).opcode(SendWr.OP_SEND_WITH_IMM).immediate(7).destination(ah, peer.qp.qpNum(), QKEY);
            wr.sge(0).set(mr, 0, text.length() + 1);
            return qp.postSend(wr.numSge(1));
        }

        WorkCompletion await() {
            int n = cq.await(wcs, 1, TimeUnit.SECONDS);
            assertEquals(1, n, "one completion within a second");
            return wcs[0];
        }

        @Override
        public void close() {
            ctx.close();
        }
    }

    @Test
    void shouldSendBetweenTwoAttachedApplicationsWithTheUnchangedApi() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 4);
             App b = new App(dir, 1, 4)) {
            assertTrue(a.ctx.isAttached());
            assertEquals(0, a.send(a.to(b), b, 9, "ping"));
            WorkCompletion recv = b.await();
            assertEquals(WcOpcode.RECV_WITH_IMM, recv.opcode());
            assertEquals(WcStatus.SUCCESS, recv.status());
            assertEquals(5, recv.byteLength());
            assertEquals(a.qp.qpNum(), recv.sourceQpn());
            assertEquals("ping", b.mr.segment().getString(1024 + (recv.wrId() - 100) * 256));
            WorkCompletion sent = a.await();
            assertEquals(9, sent.wrId());
            assertEquals(WcStatus.SUCCESS, sent.status());
            assertEquals(a.ctx.mtu(), a.ctx.queryDevice().mtu());
        }
    }

    @Test
    void shouldRefuseMemoryOutsideThePool() {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 0);
             Arena arena = Arena.ofConfined()) {
            VerbsException e = assertThrows(VerbsException.class, () -> a.pd.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE));
            assertTrue(e.getMessage().contains("allocateRegion"), e.getMessage());
        }
    }

    @Test
    void shouldRefuseAnotherClientsHandles() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 4);
             App b = new App(dir, 1, 4); App c = new App(dir, 0, 0)) {
            AttachedSession s = c.ctx.session();
            assertTrue(assertThrows(VerbsException.class, () -> s.request(new DestroyRequest(
                DestroyRequest.QP, a.qp.qpNum()))).getMessage().contains("no QP"));
            assertTrue(assertThrows(VerbsException.class, () -> s.request(ModifyQpRequest.simple(
                a.qp.qpNum(), QpState.ERROR, 0))).getMessage().contains("no QP"));
            assertThrows(VerbsException.class, () -> s.request(new DestroyRequest(
                DestroyRequest.MR, a.mr.lkey())));
            // c's send naming a's lkey (with bytes of c's own pool): refused by the PD check, nothing leaves
            AddressHandle toB = c.to(b);
            SendWr wr = new SendWr().wrId(5).destination(toB, b.qp.qpNum(), QKEY);
            wr.sge(0).set(c.mr.segment(), 0, 16, a.mr.lkey());
            assertEquals(0, c.qp.postSend(wr.numSge(1)));
            assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, c.await().status());
            // c's send naming a's address handle number: not c's, refused
            wr.sge(0).set(c.mr, 0, 16);
            wr.wrId(6).destination(a.to(b), b.qp.qpNum(), QKEY);
            assertThrows(VerbsException.class, () -> c.qp.postSend(wr), "another PD's address handle");
            assertEquals(0, b.cq.poll(b.wcs), "b received nothing");
            assertEquals(QpState.RTS, a.qp.state());
            // a is untouched: it still talks to b
            assertEquals(0, a.send(a.to(b), b, 1, "still"));
            assertEquals(WcStatus.SUCCESS, b.await().status());
        }
    }

    private interface ReclaimCheck {
        void check(AttachedWorld w, App a, App b, int bQpn);
    }

    /** App b (one QP, its CQ, MR and PD) dies without a word; {@code then} runs once the dataplane counted it reclaimed. */
    private void afterAClientIsReclaimed(ReclaimCheck then) {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 4)) {
            App b = new App(dir, 1, 4);
            int bQpn = b.qp.qpNum();
            b.ctx.session().dieForTest();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (w.counter("clients_reclaimed") < 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            then.check(w, a, b, bQpn);
        }
    }

    @Test
    void shouldReclaimEveryObjectOfAClientThatGoes() {
        afterAClientIsReclaimed((w, a, b, bQpn) -> {
            assertEquals(1, w.counter("clients_reclaimed"));
            assertEquals(4, w.counter("objects_reclaimed"), "its QP, CQ, MR and PD");
        });
    }

    @Test
    void shouldAnswerAReclaimedClientsPeersWithBadDestQp() {
        afterAClientIsReclaimed((w, a, b, bQpn) -> {
            SendWr wr = new SendWr().wrId(3).destination(a.to(b), bQpn, QKEY);
            wr.sge(0).set(a.mr, 0, 8);
            assertEquals(0, a.qp.postSend(wr.numSge(1)));
            WorkCompletion wc = a.await();
            assertEquals(WcStatus.BAD_DEST_QP_ERROR, wc.status(), wc.toString());
        });
    }

    @Test
    void shouldFailFastWithAFatalEventWhenTheDataplaneDies() {
        AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot());
        try (App a = new App(dir, 0, 1); App b = new App(dir, 1, 1)) {
            AddressHandle toB = a.to(b);
            w.close();
            AsyncEventQueue.AsyncEvent e = a.ctx.awaitAsyncEvent(5, TimeUnit.SECONDS);
            assertEquals(AsyncEventQueue.DEVICE_FATAL, e.type());
            VerbsException post = assertThrows(VerbsException.class, () -> a.send(toB, b, 1, "x"));
            assertTrue(post.getMessage().contains("is gone"), post.getMessage());
            assertThrows(VerbsException.class, () -> a.cq.poll(a.wcs));
            assertThrows(VerbsException.class, a.ctx::allocPd);
        }
    }

    @Test
    void shouldContainAClientThatScribblesOverItsRings() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 4);
             App b = new App(dir, 1, 4)) {
            App bad = new App(dir, 0, 0);
            // the producer index of its send ring, far ahead of anything it published
            bad.ctx.session().rings.set(ValueLayout.JAVA_LONG, firstSendRing(bad), 1L << 40);
            AsyncEventQueue.AsyncEvent e = bad.ctx.awaitAsyncEvent(5, TimeUnit.SECONDS);
            assertEquals(AsyncEventQueue.DEVICE_FATAL, e.type());
            assertTrue(assertThrows(VerbsException.class, bad.ctx::allocPd).getMessage().contains("ring"));
            assertEquals(1, w.counter("ring_corruptions"));
            assertEquals(0, a.send(a.to(b), b, 1, "alive"));
            assertEquals(WcStatus.SUCCESS, b.await().status());
            bad.close();
        }
    }

    @Test
    void shouldRefuseAClientOfADisallowedUser() {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.nobody())) {
            VerbsException e = assertThrows(VerbsException.class, () -> new App(dir, 0, 0));
            assertTrue(e.getMessage().contains("may not attach"), e.getMessage());
            assertEquals(1, w.counter("clients_refused"));
        }
    }

    /** The send ring's offset in the ring area: the first QP's, right after its CQ's completion ring. */
    static long firstSendRing(App app) {
        return SharedLayout.align(ShmRing.bytes(256,
            CompletionRecord.BYTES));
    }
}
