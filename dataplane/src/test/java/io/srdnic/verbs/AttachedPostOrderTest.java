package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Posting order on one dataplane serving both ends: a receive posted before the peer's send is in
 * place when the send arrives, whichever attached contexts (clients of the one dataplane) the two
 * posts came from — with no RNR retries to hide a receive taken late.
 */
class AttachedPostOrderTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final int ROUNDS = 20_000;
    /** Idle clients between the two ends (in the order the dataplane visits its clients), each with this many QPs. */
    private static final int BYSTANDERS = 3;
    private static final int BYSTANDER_QPS = 32;

    @TempDir
    Path dir;

    /**
     * Clients that attach between the two ends and make QPs they never use: a dataplane with more
     * clients than the two takes longer over a pass, as one serving many applications does.
     */
    private static AutoCloseable bystanders(Path dir) {
        Context[] ctxs = new Context[BYSTANDERS];
        for (int i = 0; i < BYSTANDERS; i++) {
            ctxs[i] = Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(1 << 16).attachedRingBytes(1 << 20));
            ProtectionDomain pd = ctxs[i].allocPd();
            CompletionQueue cq = ctxs[i].createCq(16);
            for (int q = 0; q < BYSTANDER_QPS; q++) {
                pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(4).maxRecvWr(4).build());
            }
        }
        return () -> {
            for (Context c : ctxs) {
                c.close();
            }
        };
    }

    /** One round trip each way per round, each receive posted just before the peer's send (ping-pong), SRD's RNR retry 0. */
    @Test
    void shouldHaveEachSrdReceivePostedBeforeThePeersSendInPlaceWhenItArrives() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot());
                AttachedSrdTest.App a = new AttachedSrdTest.App(dir, 0, 0);
             AutoCloseable others = bystanders(dir); AttachedSrdTest.App b = new AttachedSrdTest.App(dir, 1, 0)) {
            AddressHandle toB = a.to(b);
            AddressHandle toA = b.to(a);
            for (int i = 0; i < ROUNDS; i++) {
                oneWay(b.qp, b.mr, b.cq, a.qp, a.mr, a.cq, toB, b.qp.qpNum(), i);
                oneWay(a.qp, a.mr, a.cq, b.qp, b.mr, b.cq, toA, a.qp.qpNum(), i);
            }
        }
    }

    /** The same over RC, its QPs moved to RTS with rnr_retry 0. */
    @Test
    void shouldHaveEachRcReceivePostedBeforeThePeersSendInPlaceWhenItArrives() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot());
                AttachedRcTest.RcApp a = new AttachedRcTest.RcApp(dir, 0, 0);
             AutoCloseable others = bystanders(dir); AttachedRcTest.RcApp b = new AttachedRcTest.RcApp(dir, 1, 0)) {
            connectWithoutRnrRetries(a, b);
            connectWithoutRnrRetries(b, a);
            for (int i = 0; i < ROUNDS; i++) {
                oneWay(b.qp, b.mr, b.cq, a.qp, a.mr, a.cq, null, 0, i);
                oneWay(a.qp, a.mr, a.cq, b.qp, b.mr, b.cq, null, 0, i);
            }
        }
    }

    private static void connectWithoutRnrRetries(AttachedRcTest.RcApp from, AttachedRcTest.RcApp to) {
        AddressHandle ah = from.pd.createAddressHandle(to.ctx.mac(), to.ctx.ip(), to.ctx.udpPort());
        from.qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(ah.handle()).pathMtu(1024).destQpn(to.qp.qpNum())
            .rqPsn(500).maxDestRdAtomic(4).minRnrTimer(1));
        from.qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(500).timeout(14).retryCnt(7).rnrRetry(0).maxRdAtomic(4));
    }

    /** The receiver posts a receive, then the sender sends to it: both must complete SUCCESS. */
    private static void oneWay(QueuePair rxQp, MemoryRegion rxMr, CompletionQueue rxCq, QueuePair txQp, MemoryRegion txMr,
            CompletionQueue txCq,
                               AddressHandle ah, int qpn, int round) {
        WorkCompletion[] one = CompletionQueue.array(1);
        RecvWr r = new RecvWr();
        r.wrId(round).sge().set(rxMr, 1024, 256);
        assertEquals(0, rxQp.postRecv(r));
        SendWr wr = new SendWr().wrId(round).opcode(SendWr.OP_SEND);
        if (ah != null) {
            wr.destination(ah, qpn, AttachedSrdTest.QKEY);
        }
        wr.sge(0).set(txMr, 0, 64);
        assertEquals(0, txQp.postSend(wr.numSge(1)));
        assertEquals(1, txCq.await(one, 10, TimeUnit.SECONDS), "round " + round + ": the send completes");
        assertEquals(WcStatus.SUCCESS, one[0].status(), "round " + round + ": the send " + one[0]);
        assertEquals(1, rxCq.await(one, 10, TimeUnit.SECONDS), "round " + round + ": the receive completes");
        assertEquals(WcStatus.SUCCESS, one[0].status(), "round " + round + ": the receive " + one[0]);
    }
}
