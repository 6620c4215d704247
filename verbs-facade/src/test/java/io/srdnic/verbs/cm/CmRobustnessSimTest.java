package io.srdnic.verbs.cm;

import static io.srdnic.verbs.cm.CmConnectSimTest.PORT;
import static io.srdnic.verbs.cm.CmSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.SendWr;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What goes wrong around a handshake, on the simulator: lost messages (seeded loss), duplicate and
 * late requests and replies, a peer that dies halfway, a full backlog, malformed messages, a device
 * that goes away.
 */
class CmRobustnessSimTest {

    @Test
    void shouldConnectEachRequestExactlyOnceThroughALossyFabric() {
        LinkConfig lossy = LinkConfig.builder().lossProbability(0.25).duplicateProbability(0.1).build();
        try (CmSim sim = new CmSim(11, lossy, new CmConfig().maxRetries(20))) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmConnectSimTest.listen(server, PORT, 4);
            int n = 12;
            for (int i = 0; i < n; i++) {
                CmId c = CmConnectSimTest.request(sim, client, server, PORT, CmSim.bytes(8, i));
                CmConnectSimTest.acceptNext(sim, server);
                sim.expect(client, CmEventType.ESTABLISHED);
                sim.expect(server, CmEventType.ESTABLISHED);
                assertEquals(QpState.RTS, c.qp().state());
            }
            sim.quiet(server, 2_000 * MS); // no second CONNECT_REQUEST or ESTABLISHED for any of them
            sim.quiet(client, 10 * MS);
            long retransmits = client.cm.counters().get("retransmits") + server.cm.counters().get("retransmits");
            long duplicates = server.cm.counters().get("duplicate_requests") + client.cm.counters().get("duplicate_replies");
            assertTrue(retransmits > 0, "a quarter of the messages were lost: some were sent again");
            assertTrue(duplicates > 0, "and some arrived twice (duplicated or sent again after a lost answer)");
            assertEquals(n, server.cm.counters().get("received_RTU") >= n ? n : -1, "every connection's RTU made it in the end");
        }
    }

    @Test
    void shouldAnswerDuplicateAndLateMessagesAsInfinibandsCmDoes() {
        try (CmSim sim = new CmSim(12)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmConnectSimTest.listen(server, PORT, 4);
            CmId c = CmConnectSimTest.request(sim, client, server, PORT, new byte[0]);
            CmEvent req = sim.expect(server, CmEventType.CONNECT_REQUEST);
            CmId s = req.id();
            replay(client, c, CmMessage.REQ); // a copy while the request waits for the application
            sim.quiet(server, 10 * MS);
            assertEquals(1, server.cm.counters().get("duplicate_requests"), "no second CONNECT_REQUEST");
            assertEquals(1, server.cm.counters().get("sent_MRA"), "but an MRA: the application has it, wait longer");
            CmSim.qp(server, s);
            s.accept(new ConnParam());
            sim.expect(client, CmEventType.ESTABLISHED);
            sim.expect(server, CmEventType.ESTABLISHED);
            replay(server, s, CmMessage.REP); // as if our RTU was lost: the REP comes again
            sim.quiet(client, 10 * MS);
            assertEquals(1, client.cm.counters().get("duplicate_replies"));
            assertEquals(2, client.cm.counters().get("sent_RTU"), "the RTU went again");
            sim.quiet(server, 10 * MS);
            replay(client, c, CmMessage.REQ); // late, once established: dropped
            sim.quiet(server, 10 * MS);
            assertEquals(2, server.cm.counters().get("duplicate_requests"));
            long rejects = server.cm.counters().get("sent_REJ");
            c.disconnect();
            sim.expect(server, CmEventType.DISCONNECTED);
            sim.expect(client, CmEventType.DISCONNECTED);
            replay(client, c, CmMessage.REQ); // later still, during TIMEWAIT: a stale connection
            sim.quiet(server, 5 * MS);
            assertEquals(rejects + 1, server.cm.counters().get("sent_REJ"), "REJ (stale connection) for a request in TIMEWAIT");
            sim.expect(client, CmEventType.TIMEWAIT_EXIT);
            sim.expect(server, CmEventType.TIMEWAIT_EXIT);
        }
    }

    @Test
    void shouldWaitForASlowApplicationWhoseCmSaysItHasTheRequest() {
        try (CmSim sim = new CmSim(20)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmConnectSimTest.listen(server, PORT, 4);
            CmId c = CmConnectSimTest.request(sim, client, server, PORT, new byte[0]);
            CmEvent req = sim.expect(server, CmEventType.CONNECT_REQUEST);
            sim.quiet(client, 2_000 * MS); // the application takes 2 s, far past the 300 ms of retries
            assertTrue(server.cm.counters().get("sent_MRA") > 0);
            CmSim.qp(server, req.id());
            req.id().accept(new ConnParam());
            sim.expect(client, CmEventType.ESTABLISHED);
            sim.expect(server, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, c.qp().state());
        }
    }

    @Test
    void shouldRefuseAReplyForNoRequestWithInvalidCommId() {
        try (CmSim sim = new CmSim(13)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmConnectSimTest.listen(server, PORT, 4);
            CmId c = CmConnectSimTest.request(sim, client, server, PORT, new byte[0]);
            CmEvent req = sim.expect(server, CmEventType.CONNECT_REQUEST);
            c.destroy(); // the requester gives up: a REP for it finds no id
            CmSim.qp(server, req.id());
            req.id().accept(new ConnParam());
            CmEvent e = sim.expect(server, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_COMM_ID, e.status());
            assertEquals(QpState.ERROR, req.id().qp().state());
        }
    }

    @Test
    void shouldReportUnreachableAfterTheRetriesWhenTheResponderDiesBeforeAnswering() {
        try (CmSim sim = new CmSim(14)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmConnectSimTest.listen(server, PORT, 4);
            long start = client.context.now();
            CmId c = CmConnectSimTest.request(sim, client, server, PORT, new byte[0]);
            sim.expect(server, CmEventType.CONNECT_REQUEST);
            server.context.close(); // dies with the request in hand
            sim.expect(client, CmEventType.UNREACHABLE);
            long took = client.context.now() - start;
            assertTrue(took >= 300 * MS && took < 400 * MS, "5 retries of 50 ms after the first: " + took / MS + " ms");
            assertEquals(QpState.ERROR, c.qp().state());
            assertEquals(5, client.cm.counters().get("retransmits"));
        }
    }

    @Test
    void shouldReportUnreachableOnThePassiveSideWhenTheRequesterDiesAfterItsRequest() {
        try (CmSim sim = new CmSim(15)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmConnectSimTest.listen(server, PORT, 4);
            CmConnectSimTest.request(sim, client, server, PORT, new byte[0]);
            CmEvent req = sim.expect(server, CmEventType.CONNECT_REQUEST);
            client.context.close();
            CmSim.qp(server, req.id());
            req.id().accept(new ConnParam());
            sim.expect(server, CmEventType.UNREACHABLE);
            assertEquals(QpState.ERROR, req.id().qp().state());
            assertEquals(6, server.cm.counters().get("sent_REP"), "the REP and its 5 retries");
        }
    }

    @Test
    void shouldReportUnreachableForAnAddressNobodyHas() {
        try (CmSim sim = new CmSim(16)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmId id = CmId.create(client.channel, client.context);
            id.resolveAddr(server.context.ip() + 100, PORT);
            id.resolveRoute();
            CmSim.qp(client, id);
            id.connect(new ConnParam());
            sim.expect(client, CmEventType.ADDR_RESOLVED);
            sim.expect(client, CmEventType.ROUTE_RESOLVED);
            sim.expect(client, CmEventType.UNREACHABLE);
        }
    }

    @Test
    void shouldRejectRequestsPastAFullBacklogUntilOneIsAnswered() {
        try (CmSim sim = new CmSim(17)) {
            CmSim.Host server = sim.host();
            List<CmSim.Host> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                clients.add(sim.host());
            }
            CmConnectSimTest.listen(server, PORT, 2);
            CmConnectSimTest.request(sim, clients.get(0), server, PORT, new byte[0]);
            CmId first = sim.expect(server, CmEventType.CONNECT_REQUEST).id(); // the event itself goes back to the pool
            CmConnectSimTest.request(sim, clients.get(1), server, PORT, new byte[0]);
            sim.expect(server, CmEventType.CONNECT_REQUEST);
            CmConnectSimTest.request(sim, clients.get(2), server, PORT, new byte[0]);
            CmEvent refused = sim.expect(clients.get(2), CmEventType.REJECTED);
            assertEquals(RejectReason.NO_RESOURCES, refused.status());
            assertEquals(1, server.cm.counters().get("backlog_full"));
            CmSim.qp(server, first);
            first.accept(new ConnParam());
            sim.expect(clients.get(0), CmEventType.ESTABLISHED);
            sim.expect(server, CmEventType.ESTABLISHED);
            CmConnectSimTest.request(sim, clients.get(2), server, PORT, new byte[0]);
            sim.expect(server, CmEventType.CONNECT_REQUEST); // an answered request frees its place
        }
    }

    @Test
    void shouldConnectDespiteMalformedMessagesCountingEach() {
        try (CmSim sim = new CmSim(18)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmSim.Host attacker = sim.host();
            CmConnectSimTest.listen(server, PORT, 4);
            QueuePair raw = attacker.pd.createQueuePair(QpInitAttributes.builder(QpType.UD).cq(attacker.cq)
                .maxSendWr(64).maxRecvWr(1).build());
            raw.modify(QpState.INIT, CmMessage.QKEY);
            raw.modify(QpState.RTR, 0);
            raw.modify(QpState.RTS, 0);
            AddressHandle toServer = attacker.pd.createAddressHandle(MacAddress.BROADCAST, server.context.ip());
            MemorySegment buf = attacker.mr.segment();
            CmMessage m = new CmMessage().wrap(buf, 0);
            int good = m.write(CmMessage.REQ, 99, 0, CmId.serviceId(CmId.PS_TCP, PORT), 0);
            m.connection(5, 5, 1, 1, 7, 7, 5).sender(attacker.context.mac(), attacker.context.ip(), attacker.context.udpPort());
            send(raw, toServer, attacker, 1, good - 1); // truncated
            buf.set(ValueLayout.JAVA_BYTE, CmMessage.VERSION_OFFSET, (byte) 9);
            send(raw, toServer, attacker, 2, good); // wrong version
            buf.set(ValueLayout.JAVA_BYTE, CmMessage.VERSION_OFFSET, (byte) 1);
            m.sender(attacker.context.mac(), client.context.ip(), attacker.context.udpPort());
            send(raw, toServer, attacker, 3, good); // claims to be the client
            sim.quiet(server, 10 * MS);
            assertEquals(1, server.cm.counters().get("malformed_truncated"));
            assertEquals(1, server.cm.counters().get("malformed_wrong_version"));
            assertEquals(2, server.cm.counters().get("malformed"));
            assertEquals(1, server.cm.counters().get("wrong_sender"));
            CmConnectSimTest.request(sim, client, server, PORT, new byte[0]);
            CmConnectSimTest.acceptNext(sim, server);
            sim.expect(client, CmEventType.ESTABLISHED);
        }
    }

    @Test
    void shouldReportDeviceRemovalToEveryIdOfAClosedContext() {
        try (CmSim sim = new CmSim(19)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmConnectSimTest.Pair p = CmConnectSimTest.connect(sim, client, server);
            assertTrue(ConnectionManager.isManaged(server.context));
            server.context.close();
            assertTrue(!ConnectionManager.isManaged(server.context), "a closed context's manager is let go of (it would hold the context)");
            CmId first = sim.expect(server, CmEventType.DEVICE_REMOVAL).id();
            CmId second = sim.expect(server, CmEventType.DEVICE_REMOVAL).id();
            assertTrue(first != second, "the listener and the connection's id each hear it");
            p.client().disconnect();
            sim.expect(client, CmEventType.DISCONNECTED); // its DREQ unanswered: down after the retries
            p.listener().destroy();
        }
    }

    /** Sends again a message {@code id} sent before, as a duplicate the network kept back would arrive. */
    private static void replay(CmSim.Host h, CmId id, int type) {
        synchronized (h.cm) {
            int slot = h.cm.embedded().begin();
            int length = h.cm.embedded().tx.write(type, id.localCommId, type == CmMessage.REQ ? 0 : id.remoteCommId, id.serviceId, 0);
            h.cm.embedded().tx.sender(h.context.mac(), h.context.ip(), h.context.udpPort());
            h.cm.embedded().tx.connection(id.qp.qpNum(), id.startingPsn, id.responderResources, id.initiatorDepth, id.retryCount,
                    id.rnrRetryCount,
                CmMessage.mtuCode(id.pathMtu));
            h.cm.embedded().finish(slot, type, length, id.remoteMac, id.remoteIp, id.remoteUdpPort);
        }
    }

    private static void send(QueuePair raw, AddressHandle to, CmSim.Host from, int wrId, int length) {
        SendWr wr = new SendWr().wrId(wrId).opcode(SendWr.OP_SEND).numSge(1).destination(to, TransportDevice.MANAGEMENT_QPN,
                CmMessage.QKEY);
        wr.sge(0).set(from.mr, 0, length);
        assertEquals(0, raw.postSend(wr));
        from.context.progress();
    }
}
