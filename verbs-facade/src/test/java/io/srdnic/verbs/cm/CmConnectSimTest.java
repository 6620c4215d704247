package io.srdnic.verbs.cm;

import static io.srdnic.verbs.cm.CmSim.MS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpState;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The CM's handshake on the simulator: listen, connect with private data, accept or reject, disconnect, and the events of each step. */
class CmConnectSimTest {
    static final int PORT = 7471;

    /** A listener on {@code server} and a connected pair: the client's id and the server's (accepted) id. */
    record Pair(CmId client, CmId server, CmId listener) {
    }

    static CmId listen(CmSim.Host server, int port, int backlog) {
        CmId listener = CmId.create(server.channel, server.context);
        listener.bind(port);
        listener.listen(backlog);
        return listener;
    }

    /** The client resolves, makes its QP and sends a REQ with {@code data}. */
    static CmId request(CmSim sim, CmSim.Host client, CmSim.Host server, int port, byte[] data) {
        CmId id = CmId.create(client.channel, client.context);
        id.resolveAddr(server.context.ip(), port);
        sim.expect(client, CmEventType.ADDR_RESOLVED);
        id.resolveRoute();
        sim.expect(client, CmEventType.ROUTE_RESOLVED);
        CmSim.qp(client, id);
        id.connect(new ConnParam().privateData(data).responderResources(4).initiatorDepth(2));
        return id;
    }

    /** The server takes the next CONNECT_REQUEST, makes the id's QP and accepts; returns the id. */
    static CmId acceptNext(CmSim sim, CmSim.Host server) {
        CmId id = sim.expect(server, CmEventType.CONNECT_REQUEST).id();
        CmSim.qp(server, id);
        id.accept(new ConnParam());
        return id;
    }

    static Pair connect(CmSim sim, CmSim.Host client, CmSim.Host server) {
        CmId listener = listen(server, PORT, 4);
        CmId c = request(sim, client, server, PORT, CmSim.bytes(56, 1));
        CmEvent req = sim.expect(server, CmEventType.CONNECT_REQUEST);
        CmId s = req.id();
        CmSim.qp(server, s);
        s.accept(new ConnParam().privateData(CmSim.bytes(196, 2)).responderResources(8).initiatorDepth(8));
        sim.expect(client, CmEventType.ESTABLISHED);
        sim.expect(server, CmEventType.ESTABLISHED);
        return new Pair(c, s, listener);
    }

    @Test
    void shouldBringUpQpsThatCarryASendWithPrivateDataBothWays() {
        try (CmSim sim = new CmSim(1)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmId listener = listen(server, PORT, 4);
            CmId c = request(sim, client, server, PORT, CmSim.bytes(56, 1));
            CmEvent req = sim.expect(server, CmEventType.CONNECT_REQUEST);
            assertSame(listener, req.listenId());
            assertEquals(56, req.privateDataLength());
            assertArrayEquals(CmSim.bytes(56, 1), Arrays.copyOf(req.privateData(), 56), "the requester's 56 bytes, as RTRS needs");
            assertEquals(4, req.responderResources());
            assertEquals(2, req.initiatorDepth());
            assertEquals(client.context.ip(), req.id().remoteIp());
            CmId s = req.id();
            QueuePair sqp = CmSim.qp(server, s);
            s.setMinRnrTimer(3);
            s.accept(new ConnParam().privateData(CmSim.bytes(196, 2)).responderResources(8).initiatorDepth(8));
            assertEquals(3, sqp.query().minRnrTimer(), "rdma_set_min_rnr_timer's value");
            assertEquals(14, sqp.query().timeout());
            assertEquals(QpState.RTS, sqp.state(), "rdma_accept takes the QP to RTS before the REP leaves");
            CmEvent up = sim.expect(client, CmEventType.ESTABLISHED);
            assertEquals(196, up.privateDataLength());
            assertArrayEquals(CmSim.bytes(196, 2), Arrays.copyOf(up.privateData(), 196));
            sim.expect(server, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, c.qp().state());
            assertEquals(12, c.qp().query().minRnrTimer(), "0.64 ms unless set, not IB's 655 ms");
            assertEquals(2, s.responderResources(), "no more than the requester issues (its initiator depth)");
            assertEquals(4, s.initiatorDepth(), "no more than the requester serves (its responder resources)");
            assertEquals(2, c.initiatorDepth(), "the requester's own depth, which the responder serves in full");
            assertEquals(4, c.responderResources(), "what the responder issues: its initiator depth");

            SendWr send = new SendWr().wrId(77).opcode(SendWr.OP_SEND).flags(SendWr.SIGNALED).numSge(1);
            send.sge(0).set(client.mr, 32 * 1024, 100);
            assertEquals(0, c.qp().postSend(send));
            WorkCompletion[] wcs = CompletionQueue.array(4);
            int got = 0;
            for (int i = 0; i < 1000 && got == 0; i++) {
                got = server.cq.await(wcs, 1, TimeUnit.MILLISECONDS);
            }
            assertEquals(1, got);
            assertTrue(wcs[0].ok(), wcs[0].toString());
            assertEquals(100, wcs[0].byteLength());
        }
    }

    @Test
    void shouldDisconnectBothSidesThroughTimewait() {
        try (CmSim sim = new CmSim(2)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            Pair p = connect(sim, client, server);
            p.client().disconnect();
            assertEquals(QpState.ERROR, p.client().qp().state(), "rdma_disconnect moves the QP to ERROR");
            sim.expect(server, CmEventType.DISCONNECTED);
            assertEquals(QpState.ERROR, p.server().qp().state());
            sim.expect(client, CmEventType.DISCONNECTED);
            p.server().disconnect(); // what rdma_cm applications do on DISCONNECTED: nothing more happens
            long before = client.context.now();
            sim.expect(client, CmEventType.TIMEWAIT_EXIT);
            assertTrue(client.context.now() - before >= 40 * MS, "TIMEWAIT lasts its 50 ms");
            sim.expect(server, CmEventType.TIMEWAIT_EXIT);
            sim.quiet(client, 200 * MS);
            sim.quiet(server, 10 * MS);
            p.client().destroy();
            p.server().destroy();
            p.listener().destroy();
        }
    }

    @Test
    void shouldDisconnectOnceEachWhenBothSidesDisconnectAtOnce() {
        try (CmSim sim = new CmSim(3)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            Pair p = connect(sim, client, server);
            p.client().disconnect();
            p.server().disconnect(); // both DREQs cross on the wire
            sim.expect(client, CmEventType.DISCONNECTED);
            sim.expect(server, CmEventType.DISCONNECTED);
            sim.expect(client, CmEventType.TIMEWAIT_EXIT);
            sim.expect(server, CmEventType.TIMEWAIT_EXIT);
            sim.quiet(client, 500 * MS);
            sim.quiet(server, 10 * MS);
            assertEquals(1, client.cm.counters().get("sent_DREQ"), "the crossed DREQ answered the first: no retransmission");
        }
    }

    @Test
    void shouldRejectARequestNobodyListensForWithReasonNoListener() {
        try (CmSim sim = new CmSim(4)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            listen(server, PORT, 4);
            CmId id = request(sim, client, server, PORT + 1, new byte[0]);
            CmEvent e = sim.expect(client, CmEventType.REJECTED);
            assertEquals(RejectReason.NO_LISTENER, e.status());
            assertEquals("no listener (invalid service id)", RejectReason.name(e.status()));
            assertEquals(QpState.ERROR, id.qp().state());
            assertEquals(1, server.cm.counters().get("no_listener"));
            sim.quiet(server, 100 * MS);
        }
    }

    @Test
    void shouldCarryTheRejectersPrivateDataAndReason() {
        try (CmSim sim = new CmSim(5)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            listen(server, PORT, 4);
            request(sim, client, server, PORT, CmSim.bytes(10, 3));
            CmEvent req = sim.expect(server, CmEventType.CONNECT_REQUEST);
            assertThrows(VerbsException.class, () -> req.id().reject(new byte[149], 0, 149), "IBTA's REJ holds 148 bytes");
            req.id().reject(CmSim.bytes(148, 4), 0, 148);
            CmEvent e = sim.expect(client, CmEventType.REJECTED);
            assertEquals(RejectReason.CONSUMER_DEFINED, e.status());
            assertEquals(148, e.privateDataLength());
            assertArrayEquals(CmSim.bytes(148, 4), Arrays.copyOf(e.privateData(), 148));
        }
    }

    @Test
    void shouldRefusePrivateDataOverRdmaCmsLimits() {
        try (CmSim sim = new CmSim(6)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            listen(server, PORT, 4);
            CmId id = CmId.create(client.channel, client.context);
            id.resolveAddr(server.context.ip(), PORT);
            id.resolveRoute();
            CmSim.qp(client, id);
            VerbsException e = assertThrows(VerbsException.class, () -> id.connect(new ConnParam().privateData(new byte[57])));
            assertTrue(e.getMessage().contains("56"), e.getMessage());
            assertThrows(VerbsException.class, () -> new ConnParam().privateData(new byte[197]));
            CmId noQp = CmId.create(client.channel, client.context);
            noQp.resolveAddr(server.context.ip(), PORT);
            noQp.resolveRoute();
            assertThrows(VerbsException.class, () -> noQp.connect(new ConnParam()), "connect needs the id's QP");
        }
    }

    @Test
    void shouldReuseItsPooledEventsOnceAcked() {
        try (CmSim sim = new CmSim(7)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmId id = CmId.create(client.channel, client.context);
            id.resolveAddr(server.context.ip(), PORT);
            CmEvent first = client.channel.poll();
            client.channel.ack(first);
            assertThrows(VerbsException.class, () -> client.channel.ack(first), "acked twice");
            id.resolveRoute();
            CmEvent second = client.channel.poll();
            assertSame(first, second, "the pool lends the event it got back");
            assertEquals(CmEventType.ROUTE_RESOLVED, second.type());
        }
    }
}
