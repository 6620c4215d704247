package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The verbs API on the simulated network, one thread, virtual time. */
class VerbsSimTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static VerbsPair pair(SimWorld w, QpType type) {
        return new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), type, 32, 256);
    }

    @Test
    void shouldPingPongThroughTheApi() {
        try (SimWorld w = new SimWorld(1); VerbsPair p = pair(w, QpType.SRD)) {
            p.sa.mr.segment().setString(0, "ping");
            SendWr wr = new SendWr().wrId(7).opcode(SendWr.OP_SEND_WITH_IMM).immediate(99)
                .destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY);
            wr.sge(0).set(p.sa.mr, 0, 5);
            assertEquals(0, p.sa.qp.postSend(wr.numSge(1)));
            assertEquals(1, p.sb.cq.await(p.sb.wcs, 1, TimeUnit.MILLISECONDS));
            WorkCompletion wc = p.sb.wcs[0];
            assertEquals(WcOpcode.RECV_WITH_IMM, wc.opcode());
            assertEquals(99, wc.immediate());
            assertEquals(5, wc.byteLength());
            assertEquals(p.sa.qp.qpNum(), wc.sourceQpn());
            assertEquals(p.a.ip(), wc.sourceIp());
            assertEquals("ping", p.sb.mr.segment().getString(16 * 256));
            assertEquals(1, p.sa.cq.await(p.sa.wcs, 1, TimeUnit.MILLISECONDS));
            assertEquals(WcStatus.SUCCESS, p.sa.wcs[0].status());
            assertEquals(7, p.sa.wcs[0].wrId());
        }
    }

    @Test
    void shouldTakeOnlyMadeCompletionsWithPollCompleted() {
        try (SimWorld w = new SimWorld(1); VerbsPair p = pair(w, QpType.SRD)) {
            SendWr wr = new SendWr().wrId(7).flags(SendWr.SIGNALED).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY);
            wr.sge(0).set(p.sa.mr, 0, 5);
            assertEquals(0, p.sa.qp.postSend(wr.numSge(1)));
            // pollCompleted runs no cycle: the send is not transmitted, nothing completes, however often it is called
            for (int i = 0; i < 100; i++) {
                assertEquals(0, p.sa.cq.pollCompleted(p.sa.wcs, 64));
            }
            assertEquals(0L, p.a.counters().getOrDefault("tx_data", 0L), "pollCompleted transmitted the send");
            // poll runs cycles: the send goes, its completion is made and then taken
            assertEquals(1, p.sa.cq.await(p.sa.wcs, 1, TimeUnit.MILLISECONDS));
            assertEquals(1L, p.a.counters().get("tx_data"));
            assertEquals(0, p.sa.cq.pollCompleted(p.sa.wcs, 64), "the one completion was taken by poll");
        }
    }

    @Test
    void shouldGatherSeveralSgesOrInlineData() {
        try (SimWorld w = new SimWorld(2); VerbsPair p = pair(w, QpType.SRD)) {
            p.sa.mr.segment().setString(0, "abc");
            p.sa.mr.segment().setString(100, "defg");
            SendWr wr = new SendWr(2).wrId(1).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY);
            wr.sge(0).set(p.sa.mr, 0, 3);
            wr.sge(1).set(p.sa.mr, 100, 5);
            assertEquals(0, p.sa.qp.postSend(wr.numSge(2)));
            wr.numSge(1).flags(SendWr.SIGNALED | SendWr.INLINE).wrId(2);
            assertEquals(0, p.sa.qp.postSend(wr));
            p.sa.mr.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 'X'); // inline: copied at post time
            int got = 0;
            for (int i = 0; i < 10 && got < 2; i++) {
                got += p.sb.cq.await(p.sb.wcs, 1, TimeUnit.MILLISECONDS);
            }
            assertEquals(2, got);
            assertEquals("abcdefg", p.sb.mr.segment().getString(16 * 256));
            assertEquals("abc", p.sb.mr.segment().getString(17 * 256).substring(0, 3));
        }
    }

    @Test
    void shouldTakeInlineBytesFromAnyMemoryAsVerbsDoes() {
        try (SimWorld w = new SimWorld(4); VerbsPair p = pair(w, QpType.SRD)) {
            MemorySegment unregistered = p.arena.allocate(64);
            unregistered.setString(0, "no region");
            SendWr wr = new SendWr().wrId(1).flags(SendWr.SIGNALED | SendWr.INLINE)
                    .destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY);
            wr.sge(0).set(unregistered, 0, 10, 0); // no region, no lkey: verbs does not look at an inline SGE's lkey
            assertEquals(0, p.sa.qp.postSend(wr.numSge(1)));
            unregistered.setString(0, "XXXXXXXXX"); // taken at post time
            assertEquals(1, p.sb.cq.await(p.sb.wcs, 1, TimeUnit.MILLISECONDS));
            assertEquals(WcStatus.SUCCESS, p.sb.wcs[0].status());
            assertEquals("no region", p.sb.mr.segment().getString(16 * 256));
            // bytes outside the SGE's own segment: refused as a region check would refuse them
            wr.wrId(2).sge(0).set(unregistered, 60, 10, 0);
            assertEquals(0, p.sa.qp.postSend(wr));
            int status = -1;
            for (int tries = 0; tries < 100 && status < 0; tries++) {
                int n = p.sa.cq.await(p.sa.wcs, 1, TimeUnit.MILLISECONDS);
                for (int i = 0; i < n; i++) {
                    status = p.sa.wcs[i].wrId() == 2 ? p.sa.wcs[i].status() : status;
                }
            }
            assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, status, "an inline SGE past its segment");
            // a READ's SGE is where its response lands: it takes no inline data (EINVAL in rxe)
            SendWr read = new SendWr().wrId(3).opcode(SendWr.OP_RDMA_READ).flags(SendWr.INLINE).rdma(p.sb.mr.segment().address(),
                p.sb.mr.rkey()).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY);
            read.sge(0).set(p.sa.mr, 0, 8);
            assertTrue(assertThrows(VerbsException.class, () -> p.sa.qp.postSend(read.numSge(1))).getMessage().contains("READ"));
        }
    }

    @Test
    void shouldReportMisuseAsTheSeedSays() {
        try (SimWorld w = new SimWorld(3); VerbsPair p = pair(w, QpType.SRD)) {
            SendWr wr = new SendWr().wrId(1).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
            wr.sge(0).set(p.sa.mr.segment(), 0, 8, p.sa.mr.lkey() ^ 1);            // wrong lkey
            assertEquals(0, p.sa.qp.postSend(wr));
            MemorySegment outside = p.arena.allocate(64);
            wr.wrId(2).sge(0).set(outside, 0, 8, p.sa.mr.lkey());                     // memory outside the MR
            assertEquals(0, p.sa.qp.postSend(wr));
            wr.sge(0).set(p.sa.mr.segment(), 0, 8, p.sa.mr.lkey());
            wr.wrId(3).opcode(9);                                                     // no such opcode
            assertEquals(0, p.sa.qp.postSend(wr));
            wr.opcode(SendWr.OP_SEND);
            int[] statuses = new int[5];
            int n = p.sa.cq.poll(p.sa.wcs);
            for (int i = 0; i < n; i++) {
                statuses[(int) p.sa.wcs[i].wrId()] = p.sa.wcs[i].status();
            }
            assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, statuses[1]);
            assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, statuses[2]);
            assertEquals(WcStatus.LOCAL_QP_OPERATION_ERROR, statuses[3]);
            // Misuse that is an immediate error.
            p.sa.qp.modify(QpState.ERROR, 0);
            assertEquals(0, p.sa.qp.postSend(wr.wrId(4)), "in ERROR a post is taken, and flushed, as verbs does");
            p.sa.qp.modify(QpState.RESET, 0);
            VerbsException notRts = assertThrows(VerbsException.class, () -> p.sa.qp.postSend(wr));
            assertTrue(notRts.getMessage().contains("RTS"), notRts.getMessage());
            p.sb.toPeer.destroy();
            SendWr toDead = new SendWr().destination(p.sb.toPeer, 1, 1).numSge(1);
            toDead.sge(0).set(p.sb.mr, 0, 8);
            assertThrows(VerbsException.class, () -> p.sb.qp.postSend(toDead), "a destroyed AH");
            VerbsException busy = assertThrows(VerbsException.class, () -> p.sb.pd.destroy());
            assertTrue(busy.getMessage().contains("QP"), busy.getMessage());
            p.sb.qp.destroy();
            assertThrows(VerbsException.class, () -> p.sb.qp.postSend(toDead), "a destroyed QP");
        }
    }

    @Test
    void shouldJudgeTheMtuBySumOfSgesNotEachOne() {
        try (SimWorld w = new SimWorld(4);
             VerbsPair p = new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), QpType.SRD, 4,
                 TransportConfig.DEFAULT_MTU)) {
            int mtu = p.a.mtu();
            MemorySegment big = p.arena.allocate(2L * mtu);
            MemoryRegion bigMr = p.sa.pd.registerMemory(big, Access.LOCAL_WRITE);
            SendWr wr = new SendWr(2).wrId(1).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(2);
            wr.sge(0).set(bigMr, 0, mtu / 2);
            wr.sge(1).set(bigMr, mtu, mtu / 2 + 1); // each SGE fits, the sum is one byte over
            assertEquals(0, p.sa.qp.postSend(wr));
            assertEquals(1, p.sa.cq.await(p.sa.wcs, 1, TimeUnit.MILLISECONDS));
            assertEquals(WcStatus.LOCAL_LENGTH_ERROR, p.sa.wcs[0].status());
            wr.wrId(2);
            wr.sge(1).set(bigMr, mtu, mtu - mtu / 2); // exactly the MTU in two pieces
            assertEquals(0, p.sa.qp.postSend(wr));
            assertEquals(1, p.sa.cq.await(p.sa.wcs, 1, TimeUnit.MILLISECONDS));
            assertEquals(WcStatus.SUCCESS, p.sa.wcs[0].status());
            assertEquals(2, p.sa.wcs[0].wrId());
        }
    }

    @Test
    void shouldCompleteASendOverTheMtuWithLocalLengthError() {
        try (SimWorld w = new SimWorld(4); VerbsPair p = pair(w, QpType.SRD)) {
            MemorySegment big = p.arena.allocate(2L * p.a.mtu());
            MemoryRegion bigMr = p.sa.pd.registerMemory(big, Access.LOCAL_WRITE);
            SendWr wr = new SendWr().wrId(9).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
            wr.sge(0).set(bigMr, 0, p.a.mtu() + 1);
            assertEquals(0, p.sa.qp.postSend(wr));
            assertEquals(1, p.sa.cq.await(p.sa.wcs, 1, TimeUnit.MILLISECONDS));
            assertEquals(WcStatus.LOCAL_LENGTH_ERROR, p.sa.wcs[0].status());
        }
    }

    @Test
    void shouldReturnEnomemForAReceiveOnAFullReceiveQueue() {
        try (SimWorld w = new SimWorld(4); VerbsPair p = pair(w, QpType.SRD)) {
            RecvWr r = new RecvWr();
            r.sge().set(p.sb.mr, 0, 8);
            assertEquals(QueuePair.ENOMEM, p.sb.qp.postRecv(r), "the receive queue was filled at set-up");
        }
    }

    @Test
    void shouldRefusePostsInReset() {
        try (SimWorld w = new SimWorld(7); Context a = Context.open(Device.sim(w)); Context b = Context.open(Device.sim(w))) {
            ProtectionDomain pd = a.allocPd();
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(a.createCq(64)).maxSendWr(2).maxRecvWr(2).build());
            MemoryRegion mr = pd.registerMemory(Arena.global().allocate(64), Access.LOCAL_WRITE);
            SendWr wr = new SendWr().destination(pd.createAddressHandle(b.mac(), b.ip()), 1, 1).numSge(1);
            wr.sge(0).set(mr, 0, 8);
            VerbsException reset = assertThrows(VerbsException.class, () -> qp.postSend(wr));
            assertTrue(reset.getMessage().contains("RESET"), reset.getMessage());
            RecvWr r = new RecvWr();
            r.sge().set(mr, 0, 8);
            assertThrows(VerbsException.class, () -> qp.postRecv(r), "no receives in RESET either");
            VerbsException illegal = assertThrows(VerbsException.class, () -> qp.modify(QpState.RTS, 0));
            assertTrue(illegal.getMessage().contains("illegal transition"), illegal.getMessage());
        }
    }

    @Test
    void shouldReturnEnomemOnAFullSendQueue() {
        try (SimWorld w = new SimWorld(7); Context a = Context.open(Device.sim(w)); Context b = Context.open(Device.sim(w))) {
            ProtectionDomain pd = a.allocPd();
            CompletionQueue cq = a.createCq(64);
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(2).maxRecvWr(2).build());
            MemoryRegion mr = pd.registerMemory(Arena.global().allocate(64), Access.LOCAL_WRITE);
            SendWr wr = new SendWr().destination(pd.createAddressHandle(b.mac(), b.ip()), 1, 1).numSge(1);
            wr.sge(0).set(mr, 0, 8);
            qp.modify(QpState.INIT, 1);
            qp.modify(QpState.RTR, 0);
            qp.modify(QpState.RTS, 0);
            assertEquals(0, qp.postSend(wr.wrId(1)));
            assertEquals(0, qp.postSend(wr.wrId(2)));
            assertEquals(QueuePair.ENOMEM, qp.postSend(wr.wrId(3)), "a send queue of depth 2 is full");
            assertThrows(VerbsException.class, () -> pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq)
                .maxSendWr(0).maxRecvWr(1).build()), "depth 0");
        }
    }

    @Test
    void shouldReportHonestCapabilities() {
        try (SimWorld w = new SimWorld(8); Context a = Context.open(Device.sim(w))) {
            DeviceAttributes caps = a.queryDevice();
            assertEquals(4096, caps.mtu());
            assertEquals(caps.mtu(), caps.maxMessageSize(), "a SEND is one packet");
            assertTrue(caps.rdmaRead() && caps.rdmaWrite(), "RDMA on SRD, as EFA has it");
            assertEquals(1 << 30, caps.maxRdmaSize(), "RDMA requests are segmented, up to 1 GiB");
            assertTrue(caps.rnrRetry());
            assertTrue(caps.maxQp() > 0 && caps.maxQpWr() > 0 && caps.maxSge() > 0 && caps.maxInlineData() > 0);
        }
    }

    @Test
    void shouldDeliverUnreliableDatagramsOnUdQps() {
        try (SimWorld w = new SimWorld(5); VerbsPair p = pair(w, QpType.UD)) {
            SendWr wr = new SendWr().destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
            wr.sge(0).set(p.sa.mr, 0, 64);
            for (int i = 0; i < 10; i++) {
                assertEquals(0, p.sa.qp.postSend(wr.wrId(i)));
            }
            int got = 0;
            for (int i = 0; i < 20 && got < 10; i++) {
                got += p.sb.cq.await(p.sb.wcs, 1, TimeUnit.MILLISECONDS);
            }
            assertEquals(10, got);
            assertEquals(0, p.b.counters().get("tx_acks"));
        }
    }

    @Test
    void shouldRaiseRemoteUnresponsiveThroughTheContext() {
        ContextConfig quick = new ContextConfig();
        quick.srd().transportTimeoutNanos(2_000_000).retryBudget(4).rtoMaxNanos(1_000_000);
        try (SimWorld w = new SimWorld(6);
             VerbsPair p = new VerbsPair(Context.open(Device.sim(w), quick), Context.open(Device.sim(w)), QpType.SRD, 4, 64)) {
            for (int path = 0; path < 16; path++) {
                w.network().blackhole(path, true);
            }
            SendWr wr = new SendWr().wrId(1).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
            wr.sge(0).set(p.sa.mr, 0, 8);
            p.sa.qp.postSend(wr);
            AsyncEventQueue.AsyncEvent e = p.a.awaitAsyncEvent(100, TimeUnit.MILLISECONDS);
            assertEquals("REMOTE_UNRESPONSIVE", e.typeName());
            assertEquals(p.b.ip(), e.remoteIp());
            assertEquals(1, p.sa.cq.await(p.sa.wcs, 100, TimeUnit.MILLISECONDS));
            assertEquals(WcStatus.REMOTE_UNRESPONSIVE, p.sa.wcs[0].status());
        }
    }
}
