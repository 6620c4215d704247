package io.srdnic.verbs.cm;

import static io.srdnic.verbs.cm.CmSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.SharedReceiveQueue;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.XrcDomain;
import io.srdnic.verbs.XrcQpType;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The CM connects XRC as rdma_cm does (RDMA_PS_IB): the active side's XRC_SEND QP to a passive
 * side's XRC_RECV QP, the QP type carried in the REQ and REP; the SRQ numbers travel in the
 * accept's private data; a request or a reply of the other QP type is rejected, reason 9.
 */
class CmXrcSimTest {
    static final int PORT = 7472;
    static final int JOBS = 2;

    /** The passive node: an XRC domain, and per job a PD, CQ, memory and XRC SRQ with receives posted. */
    static final class Jobs {
        final XrcDomain xrcd;
        final CompletionQueue[] cqs = new CompletionQueue[JOBS];
        final SharedReceiveQueue[] srqs = new SharedReceiveQueue[JOBS];

        Jobs(CmSim sim, CmSim.Host h) {
            xrcd = h.context.openXrcDomain();
            for (int j = 0; j < JOBS; j++) {
                ProtectionDomain pd = h.context.allocPd();
                cqs[j] = h.context.createCq(16);
                MemoryRegion mr = pd.registerMemory(sim.arena.allocate(8 * 1024, 64), Access.LOCAL_WRITE);
                srqs[j] = pd.createXrcSrq(xrcd, cqs[j], 8, 1, 0);
                RecvWr r = new RecvWr();
                for (int i = 0; i < 4; i++) {
                    r.wrId(100L * j + i).sge().set(mr, i * 1024L, 1024);
                    srqs[j].postSrqRecv(r);
                }
            }
        }

        /** Each job's SRQ number, 4 bytes each: what the requester needs to name them. */
        byte[] srqNumbers() {
            ByteBuffer b = ByteBuffer.allocate(4 * JOBS);
            for (SharedReceiveQueue srq : srqs) {
                b.putInt(srq.srqNumber());
            }
            return b.array();
        }
    }

    static CmId xrcListener(CmSim.Host server) {
        CmId listener = CmId.create(server.channel, server.context, XrcQpType.XRC_RECV);
        listener.bind(PORT);
        listener.listen(4);
        return listener;
    }

    /** The client's id of {@code type} (null: RC) in RDMA_PS_IB, resolved, with its QP attached and a REQ sent. */
    static CmId request(CmSim sim, CmSim.Host client, CmSim.Host server, XrcQpType type) {
        CmId id = type == null ? CmId.create(client.channel, client.context, CmId.PS_IB)
                : CmId.create(client.channel, client.context, type);
        id.resolveAddr(server.context.ip(), PORT);
        sim.expect(client, CmEventType.ADDR_RESOLVED);
        id.resolveRoute();
        sim.expect(client, CmEventType.ROUTE_RESOLVED);
        if (type == null) {
            CmSim.qp(client, id);
        } else {
            id.attachQp(client.pd.createQueuePair(QpInitAttributes.xrcSend(client.cq).maxSendWr(16).build()));
        }
        id.connect(new ConnParam().privateData(new byte[] {42}));
        return id;
    }

    @Test
    void shouldReachEveryJobsSrqThroughOneXrcConnection() {
        try (CmSim sim = new CmSim(21)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            Jobs jobs = new Jobs(sim, server);
            CmId listener = xrcListener(server);
            CmId c = request(sim, client, server, XrcQpType.XRC_SEND);
            CmEvent req = sim.expect(server, CmEventType.CONNECT_REQUEST);
            assertSame(listener, req.listenId());
            CmId s = req.id();
            assertEquals(XrcQpType.XRC_RECV, s.xrcType(), "the request's id takes the target's half");
            assertEquals(42, req.privateData()[0]);
            QueuePair target = jobs.xrcd.createRecvQueuePair();
            s.attachQp(target);
            s.accept(new ConnParam().privateData(jobs.srqNumbers()));
            assertEquals(QpState.RTS, target.state());
            CmEvent up = sim.expect(client, CmEventType.ESTABLISHED);
            ByteBuffer numbers = ByteBuffer.wrap(up.privateData(), 0, up.privateDataLength());
            int[] srqn = {numbers.getInt(), numbers.getInt()};
            sim.expect(server, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, c.qp().state());

            SendWr send = new SendWr().opcode(SendWr.OP_SEND_WITH_IMM).numSge(1);
            for (int j = 0; j < JOBS; j++) {
                send.wrId(j).immediate(500 + j).remoteSrqn(srqn[j]).sge(0).set(client.mr, 0, 64 + j);
                assertEquals(0, c.qp().postSend(send));
            }
            WorkCompletion[] wcs = CompletionQueue.array(1);
            for (int j = 0; j < JOBS; j++) {
                int got = 0;
                for (int i = 0; i < 1000 && got == 0; i++) {
                    got = jobs.cqs[j].await(wcs, 1, TimeUnit.MILLISECONDS);
                }
                assertEquals(1, got, "job " + j + "'s message on job " + j + "'s CQ");
                assertTrue(wcs[0].ok(), wcs[0].toString());
                assertEquals(WcOpcode.RECV_WITH_IMM, wcs[0].opcode());
                assertEquals(500 + j, wcs[0].immediate());
                assertEquals(64 + j, wcs[0].byteLength());
                assertEquals(100L * j, wcs[0].wrId());
                assertEquals(target.qpNum(), wcs[0].qpNum());
            }

            c.disconnect();
            assertEquals(QpState.ERROR, c.qp().state());
            sim.expect(server, CmEventType.DISCONNECTED);
            assertEquals(QpState.ERROR, target.state());
            sim.expect(client, CmEventType.DISCONNECTED);
            sim.expect(client, CmEventType.TIMEWAIT_EXIT);
            sim.expect(server, CmEventType.TIMEWAIT_EXIT);
        }
    }

    @Test
    void shouldRejectARequestOfAnotherQpTypeThanTheListenersWithReasonInvalidTransportType() {
        try (CmSim sim = new CmSim(22)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmId xrc = xrcListener(server);
            CmId rc = request(sim, client, server, null);
            CmEvent e = sim.expect(client, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_TRANSPORT_TYPE, e.status());
            assertEquals("QP type mismatch (invalid transport service type)", RejectReason.name(e.status()));
            assertEquals(QpState.ERROR, rc.qp().state());
            sim.quiet(server, 100 * MS);
            xrc.destroy();

            CmId rcListener = CmId.create(server.channel, server.context, CmId.PS_IB);
            rcListener.bind(PORT);
            rcListener.listen(4);
            CmId send = request(sim, client, server, XrcQpType.XRC_SEND);
            e = sim.expect(client, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_TRANSPORT_TYPE, e.status(), "an XRC_SEND QP has no RC peer");
            assertEquals(QpState.ERROR, send.qp().state());
            sim.quiet(server, 100 * MS);
            assertEquals(2, server.cm.counters().get("wrong_transport"));
        }
    }

    @Test
    void shouldRejectAReplyOfAnotherQpTypeThanTheRequest() {
        try (CmSim sim = new CmSim(23)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            Jobs jobs = new Jobs(sim, server);
            CmId listener = xrcListener(server);
            CmId c = request(sim, client, server, XrcQpType.XRC_SEND);
            CmId s = sim.expect(server, CmEventType.CONNECT_REQUEST).id();
            QueuePair target = jobs.xrcd.createRecvQueuePair();
            s.attachQp(target);
            // A broken peer's REP first: RC (transport byte 0), while the requester connects XRC. Then the real one.
            synchronized (server.cm) {
                int slot = server.cm.embedded().begin();
                int length = server.cm.embedded().tx.write(CmMessage.REP, s.localCommId, s.remoteCommId, s.serviceId, 0);
                server.cm.embedded().tx.sender(server.context.mac(), server.context.ip(), server.context.udpPort());
                server.cm.embedded().tx.connection(target.qpNum(), s.startingPsn, 1, 1, 0, 7, CmMessage.mtuCode(s.pathMtu));
                server.cm.embedded().finish(slot, CmMessage.REP, length, s.remoteMac, s.remoteIp, s.remoteUdpPort);
            }
            s.accept(new ConnParam());
            CmEvent e = sim.expect(client, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_TRANSPORT_TYPE, e.status());
            assertEquals(QpState.ERROR, c.qp().state());
            CmEvent told = sim.expect(server, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_TRANSPORT_TYPE, told.status(), "the responder does not wait for an RTU");
            listener.destroy();
        }
    }

    @Test
    void shouldRefuseAQpOrARoleOfTheOtherHalf() {
        try (CmSim sim = new CmSim(24)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmId send = CmId.create(client.channel, client.context, XrcQpType.XRC_SEND);
            VerbsException rcQp = assertThrows(VerbsException.class, () -> CmSim.qp(client, send));
            assertTrue(rcQp.getMessage().contains("XRC_SEND"), rcQp.getMessage());
            XrcDomain xrcd = client.context.openXrcDomain();
            VerbsException wrongHalf = assertThrows(VerbsException.class, () -> send.attachQp(xrcd.createRecvQueuePair()));
            assertEquals("this id connects XRC_SEND QPs, this one is XRC_RECV", wrongHalf.getMessage());
            send.bind(0);
            VerbsException listens = assertThrows(VerbsException.class, () -> send.listen(1));
            assertTrue(listens.getMessage().contains("XRC_RECV"), listens.getMessage());
            CmId recv = CmId.create(server.channel, server.context, XrcQpType.XRC_RECV);
            recv.resolveAddr(client.context.ip(), PORT);
            recv.resolveRoute();
            VerbsException connects = assertThrows(VerbsException.class, () -> recv.connect(new ConnParam()));
            assertTrue(connects.getMessage().contains("passive side"), connects.getMessage());
            CmId rc = CmId.create(client.channel, client.context);
            assertThrows(VerbsException.class, () -> rc.attachQp(client.pd.createQueuePair(QpInitAttributes.xrcSend(client.cq)
                .maxSendWr(4).build())));
            assertNull(rc.xrcType());
        }
    }
}
