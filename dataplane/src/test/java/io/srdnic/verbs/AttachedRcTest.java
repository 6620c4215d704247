package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RC queue pairs on attached contexts: brought up with the whole QpAttributes over the control
 * socket, every opcode through the shared rings, completions in post order, an error that puts the
 * QP in ERROR seen by its client, and a client killed under a connection.
 */
class AttachedRcTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;

    @TempDir
    Path dir;

    /** One attached application with an RC QP in INIT, a pool region open to its peer, and receives posted. */
    static final class RcApp implements AutoCloseable {
        final Context ctx;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion mr;
        final WorkCompletion[] one = CompletionQueue.array(1);

        RcApp(Path dir, int port, int receives) {
            ctx = Context.open(Device.attached(dir), new ContextConfig().attachedPort(port).attachedPoolBytes(1 << 20)
                .attachedRingBytes(1 << 20));
            pd = ctx.allocPd();
            cq = ctx.createCq(256);
            qp = pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(cq)
                .maxSendWr(64).maxRecvWr(64).maxSendSge(2).maxInlineData(64).build());
            mr = pd.allocateRegion(64 * 1024, REMOTE);
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                .accessFlags(QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ | QpAttributes.ACCESS_REMOTE_ATOMIC));
            RecvWr r = new RecvWr();
            for (int i = 0; i < receives; i++) {
                r.wrId(100 + i).sge().set(mr, 1024 + i * 256L, 256);
                assertEquals(0, qp.postRecv(r));
            }
        }

        /** RTR then RTS towards {@code peer}'s QP, with everything verbs asks of an RC QP. */
        void connect(RcApp peer, int timeout, int retries) {
            AddressHandle ah = pd.createAddressHandle(peer.ctx.mac(), peer.ctx.ip(), peer.ctx.udpPort());
            qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(ah.handle()).pathMtu(1024).destQpn(peer.qp.qpNum())
                .rqPsn(500).maxDestRdAtomic(4).minRnrTimer(1));
            qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(500).timeout(timeout).retryCnt(retries).rnrRetry(7).maxRdAtomic(4));
        }

        WorkCompletion await() {
            assertEquals(1, cq.await(one, 1, TimeUnit.SECONDS), "a completion within a second");
            return one[0];
        }

        /** A WR on one SGE of this app's region. */
        SendWr wr(long wrId, int opcode, long offset, int length) {
            SendWr wr = new SendWr().wrId(wrId).opcode(opcode);
            wr.sge(0).set(mr, offset, length);
            return wr.numSge(1);
        }

        @Override
        public void close() {
            ctx.close();
        }
    }

    static void pair(RcApp a, RcApp b, int timeout, int retries) {
        a.connect(b, timeout, retries);
        b.connect(a, timeout, retries);
    }

    @Test
    void shouldRunEveryRcOpcodeThroughTheRingsAndCompleteInPostOrder() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); RcApp a = new RcApp(dir, 0, 4);
             RcApp b = new RcApp(dir, 1, 4)) {
            pair(a, b, 14, 7);
            assertEquals(QpState.RTS, a.qp.state());
            long bBase = b.mr.segment().address(); // b advertises its own mapping's addresses
            a.mr.segment().setString(0, "written");
            a.mr.segment().setString(64, "sent");
            b.mr.segment().setString(8192, "read back");
            b.mr.segment().set(ValueLayout.JAVA_LONG, 16384, 40);
            b.mr.segment().set(ValueLayout.JAVA_LONG, 16392, 7);
            assertEquals(0, a.qp.postSend(a.wr(1, SendWr.OP_RDMA_WRITE, 0, 8).rdma(bBase + 4096, b.mr.rkey())));
            assertEquals(0, a.qp.postSend(a.wr(2, SendWr.OP_SEND, 64, 5)));
            assertEquals(0, a.qp.postSend(a.wr(3, SendWr.OP_RDMA_WRITE_WITH_IMM, 0, 8).rdma(bBase + 6144, b.mr.rkey()).immediate(77)));
            assertEquals(0, a.qp.postSend(a.wr(4, SendWr.OP_RDMA_READ, 512, 10).rdma(bBase + 8192, b.mr.rkey())));
            SendWr add = a.wr(5, SendWr.OP_ATOMIC_FETCH_ADD, 1024 * 32, 8);
            assertEquals(0, a.qp.postSend(add.atomic(bBase + 16384, b.mr.rkey(), 2, 0)));
            SendWr swap = a.wr(6, SendWr.OP_ATOMIC_CMP_SWAP, 1024 * 32 + 8, 8);
            assertEquals(0, a.qp.postSend(swap.atomic(bBase + 16392, b.mr.rkey(), 7, 99)));
            int[] opcodes = {WcOpcode.RDMA_WRITE, WcOpcode.SEND, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.FETCH_ADD,
                WcOpcode.COMP_SWAP};
            for (int i = 0; i < opcodes.length; i++) {
                WorkCompletion wc = a.await();
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                assertEquals(i + 1, wc.wrId(), "completions in post order");
                assertEquals(opcodes[i], wc.opcode(), wc.toString());
            }
            assertEquals("written", b.mr.segment().getString(4096));
            assertEquals("written", b.mr.segment().getString(6144));
            assertEquals("read back", a.mr.segment().getString(512));
            assertEquals(40, a.mr.segment().get(ValueLayout.JAVA_LONG, 1024 * 32), "fetch-add returns the old value");
            assertEquals(42, b.mr.segment().get(ValueLayout.JAVA_LONG, 16384));
            assertEquals(7, a.mr.segment().get(ValueLayout.JAVA_LONG, 1024 * 32 + 8), "compare-swap returns the old value");
            assertEquals(99, b.mr.segment().get(ValueLayout.JAVA_LONG, 16392));
            WorkCompletion recv = b.await();
            assertEquals(WcOpcode.RECV, recv.opcode());
            assertEquals("sent", b.mr.segment().getString(1024 + (recv.wrId() - 100) * 256));
            WorkCompletion imm = b.await();
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, imm.opcode());
            assertEquals(77, imm.immediate());
        }
    }

    private interface PairCheck {
        void check(AttachedWorld w, RcApp a, RcApp b, MemoryRegion readOnly);
    }

    /** a and b connected; a WRITE from a into b's read-only region completes REMOTE_ACCESS_ERROR; then {@code then}. */
    private void afterARemoteAccessError(PairCheck then) {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); RcApp a = new RcApp(dir, 0, 0);
             RcApp b = new RcApp(dir, 1, 4)) {
            pair(a, b, 14, 7);
            MemoryRegion readOnly = b.pd.allocateRegion(4096, Access.REMOTE_READ);
            assertEquals(0, a.qp.postSend(a.wr(1, SendWr.OP_RDMA_WRITE, 0, 64).rdma(readOnly.segment().address(), readOnly.rkey())));
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, a.await().status());
            then.check(w, a, b, readOnly);
        }
    }

    @Test
    void shouldPutTheQpInErrorOnARemoteAccessError() {
        afterARemoteAccessError((w, a, b, readOnly) -> {
            assertEquals(QpState.ERROR, a.qp.query().state(), "the dataplane's QP is in ERROR, and the client asks it");
            assertEquals(QpState.ERROR, a.qp.state());
        });
    }

    @Test
    void shouldFlushWhatAClientPostsToItsQpInError() {
        afterARemoteAccessError((w, a, b, readOnly) -> {
            // posted before the client looked: the dataplane completes it as a QP in ERROR does, flushed
            assertEquals(0, a.qp.postSend(a.wr(2, SendWr.OP_RDMA_WRITE, 0, 8).rdma(readOnly.segment().address(), readOnly.rkey())));
            WorkCompletion flushed = a.await();
            assertEquals(2, flushed.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERROR, flushed.status(), flushed.toString());
            assertEquals(WcOpcode.RDMA_WRITE, flushed.opcode());
            assertEquals(QpState.ERROR, a.qp.query().state());
            assertEquals(0, a.qp.postSend(a.wr(3, SendWr.OP_SEND, 0, 8)), "once the client knows, still taken, as verbs takes it");
            WorkCompletion again = a.await();
            assertEquals(3, again.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERROR, again.status(), again.toString());
        });
    }

    @Test
    void shouldAnswerAQueryWithTheWholeAttributes() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); RcApp a = new RcApp(dir, 0, 0);
             RcApp b = new RcApp(dir, 1, 0)) {
            pair(a, b, 12, 3);
            QpAttributes q = a.qp.query();
            assertEquals(QpState.RTS, q.state());
            assertEquals(b.qp.qpNum(), q.destQpn());
            assertEquals(12, q.timeout());
            assertEquals(3, q.retryCnt());
            assertEquals(4, q.maxRdAtomic());
        }
    }

    /** a and b connected (a local ACK timeout of about 1 ms, two retries); b dies; {@code then} once b is counted reclaimed. */
    private void afterAConnectedClientIsReclaimed(PairCheck then) {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); RcApp a = new RcApp(dir, 0, 4)) {
            RcApp b = new RcApp(dir, 1, 4);
            pair(a, b, 8, 2); // the peer finds out fast
            assertEquals(0, a.qp.postSend(a.wr(1, SendWr.OP_SEND, 0, 8)));
            assertEquals(WcStatus.SUCCESS, a.await().status());
            b.ctx.session().dieForTest();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (w.counter("clients_reclaimed") < 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            then.check(w, a, b, null);
        }
    }

    @Test
    void shouldReclaimAKilledClientsRcQpWithItsObjects() {
        afterAConnectedClientIsReclaimed((w, a, b, none) -> {
            assertEquals(1, w.counter("clients_reclaimed"));
            assertEquals(5, w.counter("objects_reclaimed"), "its QP, AH, MR, CQ and PD");
        });
    }

    @Test
    void shouldLetAKilledClientsPeerFindOutAsVerbsDoes() {
        afterAConnectedClientIsReclaimed((w, a, b, none) -> {
            assertEquals(0, a.qp.postSend(a.wr(2, SendWr.OP_SEND, 0, 8)));
            WorkCompletion wc = a.await();
            assertEquals(2, wc.wrId());
            assertEquals(WcStatus.RETRY_EXCEEDED_ERROR, wc.status(), "no RC QP answers any more: the retries run out, as verbs");
            assertEquals(QpState.ERROR, a.qp.query().state());
        });
    }
}
